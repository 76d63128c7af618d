//! Window management of a native Wayland client through sway's IPC: what
//! `manageWindow` and the states in `windows` do on the Wayland desktop.
//!
//! sway tiles windows, so its states map onto uidrive's this way:
//! - **maximized**: tiled, its container filling its workspace (a tiled
//!   window alone on its workspace fills the output); `maximize` tiles it
//!   (`floating disable`);
//! - **restored** (neither minimized, maximized nor fullscreen): floating,
//!   at the size the app asks; `restore` floats it (`floating enable`);
//! - **minimized**: hidden in sway's scratchpad (`move scratchpad`);
//!   `restore` and `maximize` show it again (`scratchpad show`);
//! - `move` and `resize` make a tiled window floating first (sway places
//!   tiled windows itself) and say so in the outcome's `note`;
//! - **fullscreen** is read from `fullscreen_mode`; `restore` and `maximize`
//!   leave it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use uidrive_core::protocol::{Bounds, ManageWindowParams, WindowOp, WindowState};
use uidrive_core::{Error, ErrorCode, Result};
use uidrive_wayland::sway::{self, View};

use crate::discovery::TopLevel;
use crate::driver::Inner;

/// Whether sway's tree shows a command's effect on the window.
type Done = Box<dyn Fn(&View) -> bool>;

/// How often the tree is read again while an effect is awaited.
const POLL: Duration = Duration::from_millis(20);
/// How long sway's tree must keep showing an effect before it is confirmed:
/// a floating window takes the size the client commits, and a client still
/// answering an earlier configure (the one `floating enable` sent) puts the
/// old size back for a moment after the new one showed.
const HELD: Duration = Duration::from_millis(250);

/// sway's IPC socket of the app's desktop; without one (a person's GNOME or
/// KDE session), `unsupported`: no protocol lets a client manage windows there.
pub(crate) fn swaysock(inner: &Inner) -> Result<PathBuf> {
    crate::bus::env_value(&inner.env, "SWAYSOCK")
        .map(PathBuf::from)
        .ok_or_else(|| {
            Error::unsupported(
                "window management on Wayland goes through sway's IPC, and the app's desktop has no SWAYSOCK: \
                 on other Wayland sessions (GNOME, KDE Plasma) no protocol lets a client move, resize, \
                 minimize or maximize another app's window",
            )
            .with_suggestion(
                "run the app on uidrive's headless Wayland desktop (sway) or the X11 one for window management",
            )
        })
}

/// uidrive's names of the view's states (as X11's `windows` gives them).
pub(crate) fn states(view: &View) -> Vec<&'static str> {
    [
        (view.scratchpad, "minimized"),
        (view.fills_workspace && !view.fullscreen, "maximized"),
        (view.fullscreen, "fullscreen"),
        (view.focused, "focused"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name)
    .collect()
}

fn report(id: u64, view: &View, effect: &str, closed: bool, note: Option<&str>) -> WindowState {
    let (x, y, w, h) = view.content;
    let mut extra = serde_json::Map::new();
    extra.insert("floating".into(), serde_json::json!(view.floating));
    if let Some(note) = note {
        extra.insert("note".into(), serde_json::json!(note));
    }
    WindowState {
        id,
        bounds: Bounds::new(f64::from(x), f64::from(y), f64::from(w), f64::from(h)),
        states: states(view).iter().map(|s| s.to_string()).collect(),
        z_index: None,
        effect: effect.to_string(),
        closed,
        extra,
    }
}

/// Carries out `params.op` on the window `top` through sway, and waits
/// until sway's tree shows its effect.
pub(crate) fn manage(
    inner: &Inner,
    id: u64,
    top: &TopLevel,
    params: &ManageWindowParams,
) -> Result<WindowState> {
    let socket = swaysock(inner)?;
    let view = crate::display::view_for(sway::views(&socket)?, inner.app.pid, top)?;
    let con = view.id;
    // Shown again first, and out of fullscreen, for maximize and restore.
    let mut unhide = Vec::new();
    if view.scratchpad {
        unhide.push("scratchpad show");
    }
    if view.fullscreen {
        unhide.push("fullscreen disable");
    }
    let floated = (!view.floating)
        .then_some("sway tiles windows: uidrive made the window floating to place it");
    let (commands, note, done): (String, Option<&str>, Done) = match params.op {
        WindowOp::Read => return Ok(report(id, &view, "read", false, None)),
        WindowOp::Move => {
            let (x, y) = (params.x.unwrap_or_default(), params.y.unwrap_or_default());
            (
                format!("floating enable, move absolute position {x} {y}"),
                floated,
                Box::new(move |v| (v.content.0, v.content.1) == (x, y)),
            )
        }
        WindowOp::Resize => {
            let (w, h) = (
                params.width.unwrap_or_default(),
                params.height.unwrap_or_default(),
            );
            // sway resizes a floating window about its centre: a window
            // floating already keeps its corner where it was, as on X11.
            let mut commands = format!("floating enable, resize set width {w} px height {h} px");
            let (x, y, _, _) = view.content;
            if view.floating {
                commands.push_str(&format!(", move absolute position {x} {y}"));
            }
            let kept = view.floating;
            (
                commands,
                floated,
                Box::new(move |v| {
                    (v.content.2, v.content.3) == (w, h)
                        && (!kept || (v.content.0, v.content.1) == (x, y))
                }),
            )
        }
        WindowOp::Minimize => (
            "move scratchpad".to_string(),
            None,
            Box::new(|v| v.scratchpad),
        ),
        WindowOp::Maximize => {
            unhide.push("floating disable");
            (
                unhide.join(", "),
                None,
                Box::new(|v| v.fills_workspace && !v.fullscreen),
            )
        }
        WindowOp::Restore => {
            unhide.push("floating enable");
            (
                unhide.join(", "),
                None,
                Box::new(|v| v.floating && !v.scratchpad && !v.fullscreen),
            )
        }
        WindowOp::Focus => ("focus".to_string(), None, Box::new(|v| v.focused)),
        WindowOp::Close => ("kill".to_string(), None, Box::new(|_| false)),
    };
    sway::command(&socket, &format!("[con_id={con}] {commands}"))?;
    let timeout = params
        .timeout
        .map(Duration::from_millis)
        .unwrap_or(uidrive_core::defaults::ACTION);
    let deadline = Instant::now() + timeout;
    let mut last = view;
    let mut shown_since: Option<Instant> = None;
    loop {
        let now = sway::views(&socket)?.into_iter().find(|v| v.id == con);
        match now {
            None if params.op == WindowOp::Close => {
                inner
                    .activity
                    .acted(&inner.app.bus, Duration::from_millis(20));
                return Ok(report(id, &last, "confirmed", true, None));
            }
            None => {
                return Err(Error::no_window(format!(
                    "the window \"{}\" went while sway carried out `{commands}`",
                    top.title
                ))
                .with_suggestion("list the windows again (`windows`)"))
            }
            Some(v) if done(&v) => {
                let since = *shown_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= HELD {
                    inner
                        .activity
                        .acted(&inner.app.bus, Duration::from_millis(20));
                    return Ok(report(id, &v, "confirmed", false, note));
                }
                last = v;
            }
            Some(v) => {
                shown_since = None;
                last = v;
            }
        }
        if Instant::now() >= deadline {
            return Err(not_done(params.op, &commands, &last, timeout));
        }
        std::thread::sleep(POLL);
    }
}

/// The error for an effect sway's tree did not show, naming what it shows.
fn not_done(op: WindowOp, commands: &str, now: &View, timeout: Duration) -> Error {
    let (x, y, w, h) = now.content;
    let suggestion = match op {
        WindowOp::Resize => "the app may limit its size (a minimum or a fixed size); read its bounds for the size it took",
        WindowOp::Maximize => "a tiled window fills its workspace only when it is alone there: close or minimize the app's other windows first",
        WindowOp::Close => "the app may have asked something first (save changes?): look for a new dialog with `windows`, or close the app",
        _ => "read the window's bounds and states (`windows`) and try again",
    };
    Error::new(
        ErrorCode::Failed,
        format!(
            "sway did not show the window's `{}` within {} ms of `{commands}`: it is at {x},{y} size {w}x{h}, {}, states [{}]",
            op.as_str(),
            timeout.as_millis(),
            if now.floating { "floating" } else { "tiled" },
            states(now).join(", ")
        ),
    )
    .with_suggestion(suggestion)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> View {
        View {
            id: 7,
            pid: 42,
            title: "Untitled 1 - Mousepad".into(),
            app_id: "mousepad".into(),
            surface: (0, 0),
            content: (0, 0, 1920, 1200),
            focused: true,
            floating: false,
            xwayland: false,
            fullscreen: false,
            scratchpad: false,
            fills_workspace: true,
            output: (0, 0, 1920, 1200),
        }
    }

    #[test]
    fn sway_states_map_onto_uidrive_names() {
        assert_eq!(states(&view()), ["maximized", "focused"]);
        let hidden = View {
            scratchpad: true,
            floating: true,
            fills_workspace: false,
            focused: false,
            ..view()
        };
        assert_eq!(states(&hidden), ["minimized"]);
        let full = View {
            fullscreen: true,
            ..view()
        };
        assert_eq!(states(&full), ["fullscreen", "focused"]);
        let floating = View {
            floating: true,
            fills_workspace: false,
            ..view()
        };
        assert_eq!(states(&floating), ["focused"]);
    }
}
