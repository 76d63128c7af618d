//! Apps that show a window but never join the accessibility bus — Tk,
//! Xt's xterm, Java without its ATK bridge — told at once, and still driven
//! by what they show.
//!
//! Launching watches the X display beside the bus: once a window of the
//! launched process (or one it started) shows, the libraries that process
//! has loaded (`/proc/PID/maps`) tell whether its toolkit talks to
//! assistive technology at all (GTK, Qt, Gecko, Chromium's and Java's ATK
//! bridges, LibreOffice's VCL). One that does is waited for as before; one
//! that does not is reported after [`GRACE`], with its toolkit, why and what
//! to do, and the launch returns a [`NoTreeDriver`]: its windows, real
//! input and captures work through the X server, and everything that needs
//! the tree fails at once with `unsupported`, saying the same. Before, such
//! a launch waited out its whole timeout and reported `app_exited` while
//! the app ran.

use crate::discovery::pid_and_descendants;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uidrive_core::protocol::{
    ActParams, Bounds, Capture, CaptureParams, CellAtParams, ElementAtParams, ElementId,
    EvalParams, Hello, IdleParams, InputParams, MenuParams, Method, Node, Tree, TreeParams, Window,
    WindowId, WindowKind, WindowList,
};
use uidrive_core::{Driver, Error, Result};
use uidrive_x11::{XWindow, X11};

/// How long a window of a toolkit without accessibility is shown before
/// the launch says so (a late library would have been loaded by then).
pub const GRACE: Duration = Duration::from_millis(1500);

/// How often launching looks at the X display for the app's windows.
const LOOK_EVERY: Duration = Duration::from_millis(200);

/// Libraries whose presence means the process talks to assistive
/// technology, and will join the bus however long it takes.
const ACCESSIBLE: &[&str] = &[
    "libatk-bridge-2.0.so",
    "libatk-wrapper.so",
    "libgtk-3.so",
    "libgtk-4.so",
    "libgtk-x11-2.0.so",
    "libQt5Gui.so",
    "libQt6Gui.so",
    "libxul.so",
    "libmergedlo.so",
    "libvcllo.so",
    "libatspi.so",
];

/// Toolkits without accessibility, by a library each loads.
const SILENT: &[(&str, &str)] = &[
    ("libjvm.so", "Java (AWT/Swing)"),
    ("libtk8", "Tk"),
    ("libXaw", "Xt with the Athena widgets"),
    ("libXm.so", "Motif"),
    ("libfltk", "FLTK"),
];

/// Where Debian's libatk-wrapper-java puts the bridge.
pub const JAVA_BRIDGE_JAR: &str = "/usr/share/java/java-atk-wrapper.jar";

/// Why an app has no accessibility tree, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoTree {
    /// The app's process (the one that made the window).
    pub pid: u32,
    /// Its toolkit, as far as it can be told.
    pub toolkit: String,
    pub message: String,
    pub suggestion: String,
}

impl NoTree {
    /// What the libraries of the app, whose window `owner` made, tell of
    /// it; `None` when it, or any process of the launch (`launched`), loads
    /// a toolkit that talks to assistive technology (LibreOffice's splash
    /// is drawn by a launcher that loads none, while the office it starts
    /// does), or its libraries cannot be read.
    pub fn of_process(owner: u32, launched: &[u32]) -> Option<NoTree> {
        let maps = std::fs::read_to_string(format!("/proc/{owner}/maps")).ok()?;
        let accessible = |maps: &str| ACCESSIBLE.iter().any(|lib| maps.contains(lib));
        let others = launched
            .iter()
            .filter(|pid| **pid != owner)
            .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/maps")).ok());
        if accessible(&maps) || others.into_iter().any(|m| accessible(&m)) {
            return None;
        }
        let pid = owner;
        let toolkit = SILENT
            .iter()
            .find(|(lib, _)| maps.contains(lib))
            .map(|(_, name)| name.to_string());
        Some(NoTree::new(pid, toolkit))
    }

    fn new(pid: u32, toolkit: Option<String>) -> NoTree {
        let java = toolkit.as_deref() == Some("Java (AWT/Swing)");
        let shown = toolkit
            .clone()
            .unwrap_or_else(|| "an X toolkit".to_string());
        let why = if java {
            "Java talks to assistive technology only through the ATK bridge (java-atk-wrapper), which was not loaded".to_string()
        } else if toolkit.is_some() {
            format!("{shown} does not talk to assistive technology")
        } else {
            "its toolkit loads none of the libraries that talk to assistive technology (no GTK, Qt, Gecko, Chromium or Java bridge)".to_string()
        };
        let message = format!(
            "the app (process {pid}, {shown}) shows a window but has no accessibility tree: {why}; \
             its windows, real input (keys, text, clicks at a point) and captures still work"
        );
        let suggestion = if !java {
            "drive it by what it shows: visual targets find text and pictures on its capture (`click 'ocr=\"OK\"'`, `wait 'ocr~=\"Done\"'`, `image=button.png`), `wait --changed` waits for its pixels to change and settle, `snapshot --ocr` lists the text it shows; real input (`key`, `type`) works as for any app".to_string()
        } else if !std::path::Path::new(JAVA_BRIDGE_JAR).exists() {
            format!(
                "install the bridge (Debian: apt-get install libatk-wrapper-java libatk-wrapper-java-jni, which puts {JAVA_BRIDGE_JAR}), then launch the app again: uidrive turns the bridge on for what it launches"
            )
        } else {
            format!(
                "launch the app with uidrive, which turns the bridge on (JAVA_TOOL_OPTIONS={})",
                crate::launch::java_tool_options(None).unwrap_or_default()
            )
        };
        NoTree {
            pid,
            toolkit: shown,
            message,
            suggestion,
        }
    }

    /// The error a call that needs the tree answers.
    pub fn error(&self) -> Error {
        Error::unsupported(self.message.clone()).with_suggestion(self.suggestion.clone())
    }
}

/// Launching's look at the X display (see the module's doc).
pub struct Probe {
    display: Option<String>,
    /// The display's X authority file (a headless desktop's `XAUTHORITY`).
    xauthority: Option<String>,
    launched: u32,
    x11: Option<X11>,
    last_look: Option<Instant>,
    shown_since: Option<Instant>,
    /// What the probe concluded, for the launch to take.
    pub found: Arc<Mutex<Option<NoTree>>>,
}

impl Probe {
    pub fn new(display: Option<String>, xauthority: Option<String>, launched: u32) -> Probe {
        Probe {
            display,
            xauthority,
            launched,
            x11: None,
            last_look: None,
            shown_since: None,
            found: Arc::default(),
        }
    }

    /// The error that ends the wait for the app's tree, once a window of
    /// a toolkit without accessibility has shown for [`GRACE`].
    pub fn give_up(&mut self) -> Option<Error> {
        if self.last_look.is_some_and(|at| at.elapsed() < LOOK_EVERY) {
            return None;
        }
        self.last_look = Some(Instant::now());
        if self.x11.is_none() {
            let xauthority = self.xauthority.as_deref().map(std::path::Path::new);
            self.x11 = X11::connect_as(self.display.as_deref()?, xauthority).ok();
        }
        let x11 = self.x11.as_ref()?;
        let pids = pid_and_descendants(self.launched);
        let shown = x11.shown_windows_of(&pids).ok()?;
        let owner = shown.first()?.pid?;
        let Some(no_tree) = NoTree::of_process(owner, &pids) else {
            self.shown_since = None;
            return None;
        };
        let since = *self.shown_since.get_or_insert_with(Instant::now);
        if since.elapsed() < GRACE {
            return None;
        }
        let error = no_tree.error();
        *self.found.lock().unwrap_or_else(|e| e.into_inner()) = Some(no_tree);
        Some(error)
    }
}

/// A driver for an app with no accessibility tree: its windows from the X
/// display, real input and captures; every call that needs the tree
/// answers `unsupported` with why.
pub struct NoTreeDriver {
    x11: X11,
    /// For an X client of Xwayland: the compositor, which captures (rootless
    /// Xwayland has no screen to copy from).
    compositor: Option<uidrive_wayland::Wayland>,
    launched: u32,
    why: NoTree,
    /// Window ids by X window, handed out in the order first seen.
    ids: Mutex<Vec<u32>>,
}

impl NoTreeDriver {
    /// For the app launched as process `launched` on `display`, which `why` describes.
    /// `xauthority`: the display's X authority file, if not this process's own.
    pub fn new(
        display: &str,
        xauthority: Option<&str>,
        launched: u32,
        why: NoTree,
    ) -> Result<NoTreeDriver> {
        Ok(NoTreeDriver {
            x11: X11::connect_as(display, xauthority.map(std::path::Path::new))?,
            compositor: None,
            launched,
            why,
            ids: Mutex::default(),
        })
    }

    /// Captures through the Wayland compositor when `env` is that of a
    /// Wayland desktop with Xwayland (`crate::xwayland`).
    pub fn with_compositor(mut self, env: &[(String, String)]) -> Result<NoTreeDriver> {
        if crate::xwayland::both_displays(env) {
            let display = crate::bus::env_value(env, "WAYLAND_DISPLAY").unwrap_or_default();
            let runtime_dir = crate::bus::env_value(env, "XDG_RUNTIME_DIR");
            self.compositor = Some(uidrive_wayland::Wayland::connect(
                &display,
                runtime_dir.as_deref().map(std::path::Path::new),
            )?);
        }
        Ok(self)
    }

    /// Why the app has no tree.
    pub fn why(&self) -> &NoTree {
        &self.why
    }

    fn shown(&self) -> Result<Vec<(WindowId, XWindow)>> {
        let windows = self
            .x11
            .shown_windows_of(&pid_and_descendants(self.launched))?;
        let mut ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        Ok(windows
            .into_iter()
            .map(|w| {
                let at = match ids.iter().position(|id| *id == w.id) {
                    Some(at) => at,
                    None => {
                        ids.push(w.id);
                        ids.len() - 1
                    }
                };
                (at as WindowId + 1, w)
            })
            .collect())
    }

    /// The window `wanted` names; without one, the focused, else the last shown.
    fn window(&self, wanted: Option<WindowId>) -> Result<XWindow> {
        let shown = self.shown()?;
        let focused = self.x11.focused_window().unwrap_or(0);
        let found = match wanted {
            Some(id) => shown.into_iter().find(|(at, _)| *at == id),
            None => {
                let at = shown
                    .iter()
                    .position(|(_, w)| self.x11.is_inside(focused, w.id).unwrap_or(false));
                let last = shown.len().checked_sub(1);
                at.or(last).map(|at| shown[at].clone())
            }
        };
        found.map(|(_, w)| w).ok_or_else(|| match wanted {
            Some(id) => Error::no_window(format!("the app shows no window {id}")).with_suggestion(
                "call `windows` to list the open windows and use one of their ids",
            ),
            None => Error::no_window("the app shows no window now")
                .with_suggestion("wait for its window, or check that the app still runs"),
        })
    }

    fn entry(&self, id: WindowId, w: &XWindow, focused: u32) -> Window {
        let g = w.geometry;
        let content = Bounds::new(
            f64::from(g.x),
            f64::from(g.y),
            f64::from(g.width),
            f64::from(g.height),
        );
        Window {
            id,
            title: w.title.clone(),
            kind: WindowKind::Content,
            url: None,
            bounds: crate::desktop::framed(&self.x11, w.id, content),
            content_bounds: content,
            focused: self.x11.is_inside(focused, w.id).unwrap_or(false),
            visible: w.viewable,
            extra: Default::default(),
        }
    }
}

impl Driver for NoTreeDriver {
    fn hello(&self) -> Result<Hello> {
        let methods = [
            Method::Windows,
            Method::Input,
            Method::Capture,
            Method::Idle,
        ];
        Ok(Hello {
            protocol: uidrive_core::protocol::PROTOCOL_VERSION,
            server: format!("uidrive {} (x11, no tree)", env!("CARGO_PKG_VERSION")),
            methods: methods.iter().map(|m| m.as_str().to_string()).collect(),
            actions: Vec::new(),
            extra: [("notice".to_string(), self.why.message.clone().into())]
                .into_iter()
                .collect(),
        })
    }

    fn windows(&self) -> Result<WindowList> {
        let focused = self.x11.focused_window().unwrap_or(0);
        let windows = self
            .shown()?
            .iter()
            .map(|(id, w)| self.entry(*id, w, focused))
            .collect();
        Ok(WindowList {
            windows,
            extra: [
                ("notice".to_string(), self.why.message.clone().into()),
                ("tree".to_string(), false.into()),
            ]
            .into_iter()
            .collect(),
        })
    }

    fn tree(&self, _params: &TreeParams) -> Result<Tree> {
        Err(self.why.error())
    }

    fn act(&self, _params: &ActParams) -> Result<()> {
        Err(self.why.error())
    }

    fn input(&self, params: &InputParams) -> Result<()> {
        params.validate()?;
        let window = self.window(params.window)?;
        if params.has_keyboard_events() {
            self.x11.focus(window.id)?;
        }
        let origin = (f64::from(window.geometry.x), f64::from(window.geometry.y));
        self.x11.send(origin, &params.events)
    }

    fn menu(&self, _params: &MenuParams) -> Result<()> {
        Err(self.why.error())
    }

    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        let window = self.window(params.window)?;
        if let Some(compositor) = &self.compositor {
            let g = window.geometry;
            return compositor.capture_rect(g.x, g.y, g.width, g.height);
        }
        self.x11.capture_window(window.id)
    }

    fn eval(&self, _params: &EvalParams) -> Result<serde_json::Value> {
        Err(self.why.error())
    }

    /// Nothing tells when such an app is done: the window is checked to be there.
    fn idle(&self, params: &IdleParams) -> Result<()> {
        self.window(params.window).map(drop)
    }

    fn element_at(&self, _params: &ElementAtParams) -> Result<Option<ElementId>> {
        Err(self.why.error())
    }

    fn cell_at(&self, _params: &CellAtParams) -> Result<Vec<Node>> {
        Err(self.why.error())
    }

    fn tree_for(
        &self,
        _params: &TreeParams,
        _wanted: &dyn Fn(&Tree) -> Vec<ElementId>,
    ) -> Result<Tree> {
        Err(self.why.error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_without_a_toolkit_that_talks_to_assistive_technology_has_no_tree() {
        // This test's own process loads none of those libraries.
        let me = std::process::id();
        let why = NoTree::of_process(me, &[me]).expect("no accessible toolkit here");
        assert!(why.message.contains("no accessibility tree"), "{why:?}");
        assert_eq!(why.error().code, uidrive_core::ErrorCode::Unsupported);
        let java = NoTree::new(7, Some("Java (AWT/Swing)".into()));
        assert!(java.message.contains("ATK bridge"), "{java:?}");
        assert!(
            java.suggestion.contains("libatk-wrapper-java")
                || java.suggestion.contains("JAVA_TOOL_OPTIONS"),
            "{java:?}"
        );
    }
}
