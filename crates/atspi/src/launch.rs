//! Launching an app with accessibility switched on for every toolkit.

use crate::driver::{AtspiDriver, LaunchOptions};
use std::process::{Child, Command, Stdio};
use uidrive_core::{Error, Result};

/// The variables that make every toolkit talk to assistive technology:
/// GTK 3's bridge module, Qt's switch, and the generic one Chromium and others read.
pub fn accessibility_env() -> Vec<(String, String)> {
    [
        ("GTK_MODULES", "gail:atk-bridge"),
        ("QT_ACCESSIBILITY", "1"),
        ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"),
        ("ACCESSIBILITY_ENABLED", "1"),
        ("NO_AT_BRIDGE", "0"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

impl AtspiDriver {
    /// Starts `argv` with accessibility on and `opts.env` over the process env,
    /// and attaches once its first window is on the registry.
    ///
    /// The child is the caller's: kill or wait for it. If the app never shows a
    /// window within `opts.timeout`, it is killed and the error says so; if it
    /// exits first, the error (`app_exited`) comes as soon as it has exited.
    pub fn launch(argv: &[String], opts: &LaunchOptions) -> Result<(AtspiDriver, Child)> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| Error::invalid_request("launch needs a command line; argv is empty"))?;
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::null());
        if opts.env.iter().any(|(k, _)| k == "DISPLAY") {
            // A desktop of its own: keep the app off the user's Wayland session and a11y bus.
            for name in uidrive_x11::Desktop::env_removed() {
                command.env_remove(name);
            }
        }
        for (key, value) in accessibility_env()
            .into_iter()
            .chain(opts.env.iter().cloned())
        {
            command.env(key, value);
        }
        let mut child = command.spawn().map_err(|e| {
            Error::failed(format!("could not start `{program}`: {e}"))
                .with_suggestion("check that the program is installed and on PATH")
        })?;
        match AtspiDriver::attach_pid(child.id(), opts) {
            Ok(driver) => Ok((driver, child)),
            Err(mut err) => {
                if let Ok(Some(status)) = child.try_wait() {
                    err = Error::new(
                        uidrive_core::ErrorCode::AppExited,
                        format!("`{program}` exited ({status}) before it showed a window"),
                    )
                    .with_suggestion("run the command by hand to see why it exits");
                } else {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                Err(err)
            }
        }
    }
}

/// Launches `argv` as [`AtspiDriver::launch`] does and wraps it in an App that owns the process.
pub fn launch_app(argv: &[String], opts: &LaunchOptions) -> Result<uidrive_core::App> {
    let (driver, child) = AtspiDriver::launch(argv, opts)?;
    Ok(uidrive_core::App::with_process(
        std::sync::Arc::new(driver),
        child,
    ))
}
