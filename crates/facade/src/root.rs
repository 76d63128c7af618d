//! The whole desktop as one app: every window of every app on the
//! accessibility bus, behind one [`Driver`]. WebDriver's `appium:app: Root`
//! is a session on it.
//!
//! Each app is driven by its own accessibility driver, attached when it
//! first shows a window; window ids are the desktop's own (each app numbers
//! its windows from 1), given out once and kept while the window lives, so
//! an id never names another app's window. Element ids are a window's, so a
//! call routed to the window's app needs nothing else translated.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use uidrive_core::protocol::{
    ActParams, AppList, Capture, CaptureParams, CellAtParams, ElementAtParams, ElementId,
    EvalParams, Event, Hello, IdleParams, InputParams, ManageWindowParams, MenuParams, Node, Tree,
    TreeParams, WaitEventParams, Window, WindowId, WindowList, WindowOp, WindowState,
};
use uidrive_core::{App, Driver, Error, Result};

use crate::time;

/// How long listing the bus's apps may take.
const LIST_LIMIT: Duration = Duration::from_secs(10);
/// How long attaching to an app that lists windows may take.
const ATTACH_LIMIT: Duration = Duration::from_secs(5);

/// Every app of a desktop, as one driver.
pub struct Root {
    bus: uidrive_atspi::BusApps,
    env: Vec<(String, String)>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The apps attached, by pid.
    apps: HashMap<u32, Arc<dyn Driver>>,
    /// Desktop window id -> (pid, the app's window id), and back.
    local: HashMap<WindowId, (u32, WindowId)>,
    global: HashMap<(u32, WindowId), WindowId>,
    next: WindowId,
}

impl State {
    fn global_id(&mut self, pid: u32, local: WindowId) -> WindowId {
        if let Some(id) = self.global.get(&(pid, local)) {
            return *id;
        }
        self.next += 1;
        let id = self.next;
        self.global.insert((pid, local), id);
        self.local.insert(id, (pid, local));
        id
    }
}

/// An app on the desktop of `env` (empty: this process's): the whole
/// desktop, with no app launched. Its windows are every app's.
pub fn root(env: &[(String, String)]) -> Result<App> {
    let bus = uidrive_atspi::BusApps::connect(&uidrive_atspi::LaunchOptions {
        env: env.to_vec(),
        timeout: time::LAUNCH,
    })?;
    Ok(App::new(Arc::new(Root {
        bus,
        env: env.to_vec(),
        state: Mutex::default(),
    })))
}

impl Root {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The apps that show windows now, attached (in the bus's order).
    fn apps(&self) -> Result<Vec<(u32, Arc<dyn Driver>)>> {
        let listed = self.bus.list(LIST_LIMIT)?;
        let showing: Vec<u32> = listed
            .iter()
            .filter(|a| !a.windows.is_empty())
            .map(|a| a.pid)
            .collect();
        let mut out = Vec::new();
        for pid in showing {
            let known = self.state().apps.get(&pid).cloned();
            let driver = match known {
                Some(d) => d,
                None => {
                    let options = uidrive_atspi::LaunchOptions {
                        env: self.env.clone(),
                        timeout: ATTACH_LIMIT,
                    };
                    // An app that closes its last window meanwhile is left out.
                    let Ok(d) = uidrive_atspi::AtspiDriver::attach_pid(pid, &options) else {
                        continue;
                    };
                    let d: Arc<dyn Driver> = Arc::new(d);
                    self.state().apps.insert(pid, d.clone());
                    d
                }
            };
            out.push((pid, driver));
        }
        let alive: Vec<u32> = out.iter().map(|(p, _)| *p).collect();
        let mut state = self.state();
        state.apps.retain(|pid, _| alive.contains(pid));
        Ok(out)
    }

    /// The app that shows `window` and its own id for it; `None`: the
    /// focused window of the desktop, else the first.
    fn route(&self, window: Option<WindowId>) -> Result<(Arc<dyn Driver>, WindowId, WindowId)> {
        let global = match window {
            Some(w) => w,
            None => {
                let list = self.windows()?;
                list.windows
                    .iter()
                    .find(|w| w.focused)
                    .or(list.windows.first())
                    .map(|w| w.id)
                    .ok_or_else(|| {
                        Error::no_window("no app on the desktop shows a window")
                            .with_suggestion("start an app on this desktop first")
                    })?
            }
        };
        let found = self.state().local.get(&global).copied();
        let (pid, local) = match found {
            Some(f) => f,
            None => {
                return Err(
                    Error::no_window(format!("the desktop has no window {global}"))
                        .with_suggestion("list the windows again (`windows`): it may have closed"),
                )
            }
        };
        let driver = self.state().apps.get(&pid).cloned().ok_or_else(|| {
            Error::no_window(format!(
                "window {global}'s app (process {pid}) left the desktop"
            ))
            .with_suggestion("list the windows again (`windows`)")
        })?;
        Ok((driver, local, global))
    }
}

impl Driver for Root {
    fn hello(&self) -> Result<Hello> {
        let mut hello = Hello::protocol_1();
        hello.server = "uidrive (the whole desktop)".into();
        Ok(hello)
    }

    fn windows(&self) -> Result<WindowList> {
        let mut windows: Vec<Window> = Vec::new();
        for (pid, driver) in self.apps()? {
            // An app that went between the list and the read shows nothing.
            let Ok(list) = driver.windows() else { continue };
            let mut state = self.state();
            for mut w in list.windows {
                w.id = state.global_id(pid, w.id);
                windows.push(w);
            }
        }
        Ok(WindowList {
            windows,
            extra: Default::default(),
        })
    }

    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        let (driver, local, global) = self.route(params.window)?;
        let mut tree = driver.tree(&TreeParams {
            window: Some(local),
        })?;
        tree.window = global;
        Ok(tree)
    }

    fn tree_for(
        &self,
        params: &TreeParams,
        wanted: &dyn Fn(&Tree) -> Vec<ElementId>,
    ) -> Result<Tree> {
        let (driver, local, global) = self.route(params.window)?;
        let mut tree = driver.tree_for(
            &TreeParams {
                window: Some(local),
            },
            wanted,
        )?;
        tree.window = global;
        Ok(tree)
    }

    fn act(&self, params: &ActParams) -> Result<()> {
        let (driver, local, _) = self.route(params.window)?;
        driver.act(&ActParams {
            window: Some(local),
            ..params.clone()
        })
    }

    fn input(&self, params: &InputParams) -> Result<()> {
        let (driver, local, _) = self.route(params.window)?;
        // Real input lands on whatever is in front: on a desktop of many
        // apps, the window is raised and focused first, as a person would.
        let now = driver.manage_window(&ManageWindowParams::new(Some(local), WindowOp::Read))?;
        if !now.states.iter().any(|s| s == "focused") {
            driver.manage_window(&ManageWindowParams {
                timeout: Some(uidrive_core::defaults::ACTION.as_millis() as u64),
                ..ManageWindowParams::new(Some(local), WindowOp::Focus)
            })?;
        }
        driver.input(&InputParams {
            window: Some(local),
            ..params.clone()
        })
    }

    fn menu(&self, params: &MenuParams) -> Result<()> {
        let (driver, local, _) = self.route(params.window)?;
        driver.menu(&MenuParams {
            window: Some(local),
            ..params.clone()
        })
    }

    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        let (driver, local, _) = self.route(params.window)?;
        driver.capture(&CaptureParams {
            window: Some(local),
        })
    }

    fn eval(&self, _params: &EvalParams) -> Result<serde_json::Value> {
        Err(Error::unsupported(
            "eval runs scripts in web pages; the desktop's windows show native UI",
        )
        .with_suggestion("read a window with `tree` and act on its elements instead"))
    }

    fn idle(&self, params: &IdleParams) -> Result<()> {
        let (driver, local, _) = self.route(params.window)?;
        driver.idle(&IdleParams {
            window: Some(local),
            ..params.clone()
        })
    }

    fn element_at(&self, params: &ElementAtParams) -> Result<Option<ElementId>> {
        let (driver, local, _) = self.route(params.window)?;
        driver.element_at(&ElementAtParams {
            window: Some(local),
            ..params.clone()
        })
    }

    fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        let (driver, local, _) = self.route(params.window)?;
        driver.cell_at(&CellAtParams {
            window: Some(local),
            ..params.clone()
        })
    }

    fn wait_event(&self, _params: &WaitEventParams) -> Result<Event> {
        Err(
            Error::unsupported("the whole desktop's events are not followed, only one app's")
                .with_suggestion("attach to the app whose events you wait for"),
        )
    }

    fn manage_window(&self, params: &ManageWindowParams) -> Result<WindowState> {
        let (driver, local, global) = self.route(params.window)?;
        let mut state = driver.manage_window(&ManageWindowParams {
            window: Some(local),
            ..params.clone()
        })?;
        state.id = global;
        Ok(state)
    }

    fn apps(&self) -> Result<AppList> {
        Ok(AppList {
            apps: self.bus.list(LIST_LIMIT)?,
            extra: Default::default(),
        })
    }

    fn capture_screen(&self) -> Result<Capture> {
        let apps = self.apps()?;
        let (_, driver) = apps.first().ok_or_else(|| {
            Error::unsupported(
                "the screen is captured through an app's display, and no app shows a window",
            )
            .with_suggestion("start an app on this desktop first")
        })?;
        driver.capture_screen()
    }
}
