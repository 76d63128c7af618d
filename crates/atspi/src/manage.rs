//! The desktop around the app: its windows managed through the window
//! manager (`manageWindow`, uidrive_x11's EWMH requests), their states and
//! stacking in `windows`, the apps on the accessibility bus (`apps`) and
//! the whole screen (`captureScreen`).

use std::time::Duration;

use uidrive_core::protocol::{
    AppList, Bounds, Capture, DesktopApp, ManageWindowParams, Window, WindowOp, WindowState,
};
use uidrive_core::{Error, Result};
use uidrive_x11::{WmRequest, WmWindow, XWindow, X11};

use crate::discovery::{self, TopLevel};
use crate::driver::{AtspiDriver, Inner};
use crate::windows;

/// The X window that shows `top`, minimized (unmapped) ones included: by
/// title and size, else title, else the app's only window.
fn x_window_of(x11: &X11, pid: u32, top: &TopLevel) -> Result<XWindow> {
    if let Ok(shown) = crate::desktop::x_window_for(x11, pid, top) {
        return Ok(shown);
    }
    // A minimized window is unmapped, but still the window manager's.
    let managed = x11.stacking_order().unwrap_or_default();
    let mut candidates: Vec<XWindow> = x11
        .find_windows_by_pid(pid)?
        .into_iter()
        .filter(|w| !w.override_redirect && (w.viewable || managed.contains(&w.id)))
        .collect();
    if let Some(at) = candidates.iter().position(|w| w.title == top.title) {
        return Ok(candidates.swap_remove(at));
    }
    if candidates.len() == 1 {
        return Ok(candidates.remove(0));
    }
    Err(Error::no_window(format!(
        "the window \"{}\" of process {pid} is not on the X display",
        top.title
    ))
    .with_suggestion("list the windows again (`windows`); it may have closed"))
}

fn report(id: u64, shown: &WmWindow, effect: &str, closed: bool) -> WindowState {
    let g = shown.geometry;
    let content = Bounds::new(
        f64::from(g.x),
        f64::from(g.y),
        f64::from(g.width),
        f64::from(g.height),
    );
    // The whole window as a person sees it: the window manager's frame round the content.
    let [left, right, above, below] = shown.frame.map(f64::from);
    let frame = Bounds::new(
        content.x - left,
        content.y - above,
        content.width + left + right,
        content.height + above + below,
    );
    let mut extra = serde_json::Map::new();
    if shown.exists {
        extra.insert("frame".into(), serde_json::json!(frame));
    }
    WindowState {
        id,
        bounds: content,
        states: shown.states.names().iter().map(|s| s.to_string()).collect(),
        z_index: shown.z_index,
        effect: effect.to_string(),
        closed,
        extra,
    }
}

pub fn manage_window(driver: &AtspiDriver, params: &ManageWindowParams) -> Result<WindowState> {
    params.validate()?;
    let wanted = params.window;
    let (inner, id, top) = driver.run_work(move |inner| async move {
        let (id, top) = windows::resolve(&inner.link, &inner.app, &inner.ids, wanted).await?;
        Ok((inner, id, top))
    })?;
    if inner.on_wayland() {
        return crate::swaywm::manage(&inner, id, &top, params).map_err(|e| driver.explain(e));
    }
    let x11 = inner.x11()?;
    if crate::xwayland::both_displays(&inner.env)
        && matches!(
            params.op,
            WindowOp::Move | WindowOp::Resize | WindowOp::Minimize
        )
    {
        return Err(crate::xwayland::placed_by_sway());
    }
    let window = x_window_of(&x11, inner.app.pid, &top).map_err(|e| driver.explain(e))?;
    let request = match params.op {
        WindowOp::Read => {
            let shown = x11.wm_window(window.id)?;
            return Ok(report(id, &shown, "read", !shown.exists));
        }
        WindowOp::Move => WmRequest::Move {
            x: params.x.unwrap_or_default(),
            y: params.y.unwrap_or_default(),
        },
        WindowOp::Resize => WmRequest::Resize {
            width: params.width.unwrap_or_default(),
            height: params.height.unwrap_or_default(),
        },
        WindowOp::Minimize => WmRequest::Minimize,
        WindowOp::Maximize => WmRequest::Maximize,
        WindowOp::Restore => WmRequest::Restore,
        WindowOp::Focus => WmRequest::Focus,
        WindowOp::Close => WmRequest::Close,
    };
    let timeout = params
        .timeout
        .map(Duration::from_millis)
        .unwrap_or(uidrive_core::defaults::ACTION);
    let shown = x11
        .manage_window(window.id, request, timeout)
        .map_err(|e| driver.explain(e))?;
    inner
        .activity
        .acted(&inner.app.bus, Duration::from_millis(20));
    let closed = params.op == WindowOp::Close;
    Ok(report(id, &shown, "confirmed", closed))
}

/// Adds each window's `states` and `zIndex` (uidrive's additions to
/// `windows`), where the X display tells them.
pub fn add_states(inner: &Inner, listed: &[(u64, TopLevel)], windows: &mut [Window]) {
    if inner.on_wayland() {
        return add_sway_states(inner, listed, windows);
    }
    let Ok(x11) = inner.x11() else {
        return;
    };
    for ((_, top), entry) in listed.iter().zip(windows.iter_mut()) {
        let Ok(window) = x_window_of(&x11, inner.app.pid, top) else {
            continue;
        };
        let Ok(shown) = x11.wm_window(window.id) else {
            continue;
        };
        entry
            .extra
            .insert("states".into(), serde_json::json!(shown.states.names()));
        if let Some(z) = shown.z_index {
            entry.extra.insert("zIndex".into(), serde_json::json!(z));
        }
    }
}

/// [`add_states`] on Wayland: each window's states as sway's tree shows them.
fn add_sway_states(inner: &Inner, listed: &[(u64, TopLevel)], windows: &mut [Window]) {
    let Ok(views) = crate::swaywm::swaysock(inner).and_then(|s| uidrive_wayland::sway::views(&s))
    else {
        return;
    };
    for ((_, top), entry) in listed.iter().zip(windows.iter_mut()) {
        if let Ok(view) = crate::display::view_for(views.clone(), inner.app.pid, top) {
            let states = crate::swaywm::states(&view);
            entry
                .extra
                .insert("states".into(), serde_json::json!(states));
        }
    }
}

/// Every app on the accessibility bus, with its windows' titles.
pub fn apps(driver: &AtspiDriver) -> Result<AppList> {
    driver
        .run_work(move |inner| async move {
            let apps = bus_apps(&inner.conn).await?;
            Ok((inner, apps))
        })
        .map(|(inner, mut apps)| {
            // GTK 3 leaves a window's name empty when a header bar shows its
            // title: the X window's title is what a person reads.
            if let Ok(x11) = inner.x11() {
                for app in apps
                    .iter_mut()
                    .filter(|a| a.windows.iter().any(String::is_empty))
                {
                    let shown: Vec<String> = x11
                        .shown_windows_of(&[app.pid])
                        .unwrap_or_default()
                        .into_iter()
                        .map(|w| w.title)
                        .collect();
                    if shown.len() == app.windows.len() {
                        for (title, x_title) in app.windows.iter_mut().zip(shown) {
                            if title.is_empty() {
                                *title = x_title;
                            }
                        }
                    }
                }
            }
            AppList {
                apps,
                extra: Default::default(),
            }
        })
}

/// The whole screen as a PNG.
pub fn capture_screen(driver: &AtspiDriver) -> Result<Capture> {
    let inner = driver.run_work(|inner| async move { Ok(inner) })?;
    let x11 = inner.x11()?;
    let (width, height) = x11.screen_size();
    x11.capture_rect(uidrive_x11::Rect {
        x: 0,
        y: 0,
        width,
        height,
    })
}

/// The desktop's accessibility bus with no app attached: what lists the
/// apps for a session on the whole desktop (WebDriver's `Root`), which may
/// start before any app does.
pub struct BusApps {
    conn: zbus::Connection,
    runtime: tokio::runtime::Runtime,
}

impl BusApps {
    /// Connects to the accessibility bus of `opts.env` (else the process's),
    /// within `opts.timeout`.
    pub fn connect(opts: &crate::LaunchOptions) -> Result<BusApps> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("uidrive-atspi-bus")
            .enable_all()
            .build()
            .map_err(|e| Error::failed(format!("could not start the bus's runtime: {e}")))?;
        let session =
            crate::bus::env_value(&opts.env, "DBUS_SESSION_BUS_ADDRESS").ok_or_else(|| {
                Error::disconnected(
                    "no DBUS_SESSION_BUS_ADDRESS: there is no D-Bus session to find apps on",
                )
                .with_suggestion("run inside a desktop session, or start a headless desktop")
            })?;
        let a11y = crate::bus::env_value(&opts.env, "AT_SPI_BUS_ADDRESS");
        let limit = opts.timeout;
        let conn = runtime.block_on(async move {
            tokio::time::timeout(limit, crate::bus::connect_a11y(&session, a11y.as_deref()))
                .await
                .map_err(|_| {
                    Error::timeout(format!(
                        "the accessibility bus did not answer within {} ms",
                        limit.as_millis()
                    ))
                })?
        })?;
        Ok(BusApps { conn, runtime })
    }

    /// Every app on the bus with the titles of its windows, within `limit`.
    pub fn list(&self, limit: Duration) -> Result<Vec<DesktopApp>> {
        let conn = self.conn.clone();
        self.runtime.block_on(async move {
            tokio::time::timeout(limit, async move { bus_apps(&conn).await })
                .await
                .map_err(|_| {
                    Error::timeout(format!(
                        "the accessibility bus did not list its apps within {} ms",
                        limit.as_millis()
                    ))
                })?
        })
    }
}

/// Every app on the accessibility bus with its windows' titles, as the bus
/// answers them (an app that goes while it is read is listed without windows).
async fn bus_apps(conn: &zbus::Connection) -> Result<Vec<DesktopApp>> {
    let found = discovery::all_apps(conn).await?;
    let link = crate::bus::Link::over_bus(conn.clone());
    let mut apps = Vec::with_capacity(found.len());
    for app in found {
        let titles = discovery::top_levels(&link, &app)
            .await
            .map(|tops| tops.into_iter().map(|t| t.title).collect())
            .unwrap_or_default();
        apps.push(DesktopApp {
            name: app.name,
            pid: app.pid,
            toolkit: app.toolkit_name,
            windows: titles,
            extra: Default::default(),
        });
    }
    Ok(apps)
}
