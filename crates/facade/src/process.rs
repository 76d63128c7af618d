//! The process uidrive launched, as a test sees it: its pid, how it ended,
//! and, when asked for at launch, what it wrote on stdout and stderr — so a
//! dialog that answers on stdout (zenity) can be tested without `Popen`.

use crate::platform::{self, LaunchOptions};
use crate::time;
use std::io::Read;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use uidrive_core::{App, Error, Result};

/// How a process ended: its exit code, or `-N` for signal `N` (as Python's
/// `returncode`).
pub type ExitCode = i32;

/// What is known of a launched process.
pub struct Process {
    pid: u32,
    stdout: Option<Pipe>,
    stderr: Option<Pipe>,
    exit: Mutex<Option<ExitCode>>,
}

/// Bytes read from a pipe by a thread of its own, until the pipe closes.
struct Pipe {
    bytes: Arc<Mutex<Vec<u8>>>,
    reader: Mutex<Option<JoinHandle<()>>>,
}

impl Pipe {
    fn spawn(mut source: impl Read + Send + 'static) -> Pipe {
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let sink = bytes.clone();
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = source.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend_from_slice(&chunk[..n]);
            }
        });
        Pipe {
            bytes,
            reader: Mutex::new(Some(reader)),
        }
    }

    /// What was read so far; once the process has ended, everything (the
    /// reader is joined first, so nothing still in the pipe is missed).
    fn text(&self, ended: bool) -> String {
        if ended {
            if let Some(reader) = self.reader.lock().unwrap_or_else(|p| p.into_inner()).take() {
                let _ = reader.join();
            }
        }
        String::from_utf8_lossy(&self.bytes.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}

impl Process {
    /// The process of an App uidrive launched, without captured output.
    pub fn of(app: &App) -> Option<Arc<Process>> {
        app.pid().map(|pid| {
            Arc::new(Process {
                pid,
                stdout: None,
                stderr: None,
                exit: Mutex::new(None),
            })
        })
    }

    /// The process's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether output was captured at launch.
    pub fn captured(&self) -> bool {
        self.stdout.is_some()
    }

    /// How it ended, or `None` while it runs.
    pub fn exit_code(&self, app: &App) -> Option<ExitCode> {
        let mut exit = self.exit.lock().unwrap_or_else(|p| p.into_inner());
        if exit.is_none() {
            if let Err(e) = app.check_alive() {
                *exit = e.details.exit;
            }
        }
        *exit
    }

    /// How it ended as last seen (no new check): for after the app is closed.
    pub fn last_exit(&self) -> Option<ExitCode> {
        *self.exit.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What it wrote on stdout or stderr, as last read, without the App (for
    /// after it is closed, when everything has been read).
    pub fn output(&self, stderr: bool) -> Option<String> {
        let pipe = if stderr { &self.stderr } else { &self.stdout };
        pipe.as_ref().map(|p| p.text(self.last_exit().is_some()))
    }

    /// Waits up to `timeout` for the process to end; its exit code, or `timeout`.
    pub fn wait(&self, app: &App, timeout: Duration) -> Result<ExitCode> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(code) = self.exit_code(app) {
                return Ok(code);
            }
            if Instant::now() >= deadline {
                return Err(Error::timeout(format!(
                    "the app (pid {}) still runs after {} ms",
                    self.pid,
                    timeout.as_millis()
                ))
                .with_suggestion("wait longer, or close the app to end it"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What it wrote on stdout (all of it once it has ended); `None` unless captured.
    pub fn stdout(&self, app: &App) -> Option<String> {
        let ended = self.exit_code(app).is_some();
        self.stdout.as_ref().map(|p| p.text(ended))
    }

    /// What it wrote on stderr; `None` unless captured.
    pub fn stderr(&self, app: &App) -> Option<String> {
        let ended = self.exit_code(app).is_some();
        self.stderr.as_ref().map(|p| p.text(ended))
    }

    /// Closes the app as [`platform::close`] does, keeping how it ended: the
    /// exit code when it ends when asked or on SIGTERM, `-9` when it had to
    /// be killed. Answers which step ended it.
    pub fn close(&self, app: &App) -> Result<platform::Closed> {
        let closed = match self.exit_code(app) {
            Some(_) => platform::Closed::Exited,
            None => platform::end(self.pid, platform::CLOSE_GRACE, || {
                self.exit_code(app).is_none()
            }),
        };
        let killed = self.exit_code(app).is_none();
        app.close()?;
        if killed {
            self.exit
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(-libc::SIGKILL);
        }
        Ok(closed)
    }
}

/// Launches with stdout and stderr captured, through the accessibility
/// driver: the app is started as [`uidrive_atspi::launch_app`] starts it
/// (accessibility on, Java's bridge, the switches some browser and office
/// families need) with its output piped into memory, read from the moment it
/// starts, and attached as a launch is.
pub fn launch_captured(argv: &[String], options: &LaunchOptions) -> Result<(App, Arc<Process>)> {
    if argv.is_empty() {
        return Err(Error::invalid_request(
            "launch: the command line is empty; give at least the program to run",
        ));
    }
    if options.socket_env.is_some() {
        return Err(Error::invalid_request(
            "launch: capturing output is for apps driven through accessibility, not socket_env",
        ));
    }
    let attach = uidrive_atspi::LaunchOptions {
        env: options.env.clone(),
        timeout: options.timeout.unwrap_or(time::LAUNCH),
    };
    let (mut stdout, mut stderr) = (None, None);
    let (launched, child) = uidrive_atspi::launch_any_with(
        argv,
        &attach,
        |command| {
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
        },
        |child| {
            stdout = child.stdout.take().map(Pipe::spawn);
            stderr = child.stderr.take().map(Pipe::spawn);
        },
    )?;
    let pid = child.id();
    let app = App::with_process(launched.into_driver(), child);
    // A trace written of this app holds what it said (core decides how much).
    let name = std::path::Path::new(&argv[0])
        .file_name()
        .map_or_else(|| argv[0].clone(), |n| n.to_string_lossy().into_owned());
    let source = format!("{name} (pid {pid})");
    let streams: Vec<(&'static str, Arc<Mutex<Vec<u8>>>)> =
        [("stdout", &stdout), ("stderr", &stderr)]
            .into_iter()
            .filter_map(|(stream, pipe)| pipe.as_ref().map(|p: &Pipe| (stream, p.bytes.clone())))
            .collect();
    app.tracing().set_output(Arc::new(move || {
        streams
            .iter()
            .map(|(stream, bytes)| uidrive_core::trace::Output {
                source: source.clone(),
                stream: stream.to_string(),
                text: String::from_utf8_lossy(&bytes.lock().unwrap_or_else(|p| p.into_inner()))
                    .into_owned(),
            })
            .collect()
    }));
    Ok((
        app,
        Arc::new(Process {
            pid,
            stdout,
            stderr,
            exit: Mutex::new(None),
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn the_exit_is_read_from_the_typed_details() {
        use uidrive_core::MemoryDriver;
        let child = Command::new("sh")
            .args(["-c", "kill -TERM $$"])
            .spawn()
            .unwrap();
        let app = App::with_process(Arc::new(MemoryDriver::new()), child);
        // sh ends at once, killed by its own signal.
        let err = loop {
            match app.check_alive() {
                Err(e) => break e,
                Ok(()) => std::thread::sleep(Duration::from_millis(10)),
            }
        };
        assert_eq!(err.details.exit, Some(-libc::SIGTERM), "{}", err.message);
        let process = Process::of(&app).unwrap();
        assert_eq!(process.exit_code(&app), Some(-libc::SIGTERM));
    }

    #[test]
    fn a_process_ends_with_its_code_or_the_signal() {
        use uidrive_core::MemoryDriver;
        let child = Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
        let app = App::with_process(Arc::new(MemoryDriver::new()), child);
        let process = Process::of(&app).unwrap();
        assert_eq!(process.wait(&app, Duration::from_secs(5)).unwrap(), 3);
        assert_eq!(process.close(&app).unwrap(), platform::Closed::Exited);
        assert_eq!(process.exit_code(&app), Some(3), "kept after close");

        let child = Command::new("sleep").arg("30").spawn().unwrap();
        let app = App::with_process(Arc::new(MemoryDriver::new()), child);
        let process = Process::of(&app).unwrap();
        assert_eq!(process.exit_code(&app), None);
        assert!(process.wait(&app, Duration::from_millis(50)).is_err());
        assert_eq!(process.close(&app).unwrap(), platform::Closed::Terminated);
        assert_eq!(process.exit_code(&app), Some(-libc::SIGTERM));
    }
}
