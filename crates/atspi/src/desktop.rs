//! Real input and capture through the X server (uidrive_x11), and where an
//! AT-SPI window is on screen.

use crate::discovery::TopLevel;
use crate::driver::{AtspiDriver, Inner};
use crate::windows;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uidrive_core::protocol::{Capture, CaptureParams, InputEvent, InputParams};
use uidrive_core::{Error, Result};
use uidrive_x11::{XWindow, X11};

/// The X connection, opened on first use from the driver's `DISPLAY`.
#[derive(Default)]
pub struct XLink {
    x11: Mutex<Option<Arc<X11>>>,
}

impl XLink {
    pub fn get(&self, display: Option<&str>) -> Result<Arc<X11>> {
        let mut slot = self.x11.lock().unwrap();
        if let Some(x11) = slot.as_ref() {
            return Ok(x11.clone());
        }
        let display = display.ok_or_else(|| {
            Error::unsupported("no DISPLAY: input and capture need the app's X display")
                .with_suggestion(
                "run the app on an X display (uidrive_x11::Desktop starts one) and pass its env()",
            )
        })?;
        let x11 = Arc::new(X11::connect(display)?);
        *slot = Some(x11.clone());
        Ok(x11)
    }
}

/// The X window that shows the AT-SPI window `top` of the app with `pid`:
/// the app's shown window with the same title, else the same size, else its only one.
pub fn x_window_for(x11: &X11, pid: u32, top: &TopLevel) -> Result<XWindow> {
    let mut candidates: Vec<XWindow> = x11
        .find_windows_by_pid(pid)?
        .into_iter()
        .filter(|w| w.viewable && !w.override_redirect)
        .collect();
    let size = |w: &XWindow| {
        (w.geometry.width as i32, w.geometry.height as i32) == (top.extents.2, top.extents.3)
    };
    if let Some(at) = candidates
        .iter()
        .position(|w| w.title == top.title && size(w))
    {
        return Ok(candidates.swap_remove(at));
    }
    if let Some(at) = candidates.iter().position(|w| w.title == top.title) {
        return Ok(candidates.swap_remove(at));
    }
    if let Some(at) = candidates.iter().position(size) {
        return Ok(candidates.swap_remove(at));
    }
    if candidates.len() == 1 {
        return Ok(candidates.remove(0));
    }
    Err(Error::no_window(format!(
        "the window \"{}\" of process {pid} is not shown on the X display",
        top.title
    ))
    .with_suggestion(
        "wait for the window to be shown (idle), or check that the app runs on this DISPLAY",
    ))
}

impl Inner {
    pub fn x11(&self) -> Result<Arc<X11>> {
        self.xlink
            .get(crate::bus::env_value(&self.env, "DISPLAY").as_deref())
    }
}

pub fn input(driver: &AtspiDriver, params: &InputParams) -> Result<()> {
    let wanted = params.window;
    let (inner, top) = driver.run_work(move |inner| async move {
        let (_, top) = windows::resolve(&inner.link, &inner.app, &inner.ids, wanted).await?;
        Ok((inner, top))
    })?;
    // What fails on the X side is explained as the driver's calls are (an app gone).
    let sent = send_input(&inner, &top, params).map_err(|e| driver.explain(e));
    inner
        .activity
        .acted(&inner.app.bus, Duration::from_millis(20));
    sent
}

fn send_input(inner: &Inner, top: &TopLevel, params: &InputParams) -> Result<()> {
    let x11 = inner.x11()?;
    let window = x_window_for(&x11, inner.app.pid, top)?;
    let keys = params.events.iter().any(|e| {
        matches!(
            e,
            InputEvent::Key { .. }
                | InputEvent::KeyDown { .. }
                | InputEvent::KeyUp { .. }
                | InputEvent::Text { .. }
        )
    });
    if keys {
        // No window manager gives the focus on a bare X server: give it first.
        x11.focus(window.id)?;
    }
    let origin = (f64::from(window.geometry.x), f64::from(window.geometry.y));
    x11.send(origin, &params.events)
}

pub fn capture(driver: &AtspiDriver, params: &CaptureParams) -> Result<Capture> {
    let wanted = params.window;
    let (inner, top) = driver.run_work(move |inner| async move {
        let (_, top) = windows::resolve(&inner.link, &inner.app, &inner.ids, wanted).await?;
        Ok((inner, top))
    })?;
    let captured = inner
        .x11()
        .and_then(|x11| x11.capture_window(x_window_for(&x11, inner.app.pid, &top)?.id));
    captured.map_err(|e| driver.explain(e))
}
