//! Real input and capture through the X server (uidrive_x11), where an
//! AT-SPI window is on screen, and where GTK 4's popovers really are.

use crate::bus::{self, ObjRef, IFACE_COMPONENT};
use crate::discovery::{AppRef, Toolkit, TopLevel};
use crate::driver::{AtspiDriver, Inner};
use crate::tree::Element;
use crate::windows;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;
use uidrive_core::protocol::{Bounds, Capture, CaptureParams, ElementId, InputParams};
use uidrive_core::{Error, Result};
use uidrive_x11::{Rect, XWindow, X11};

/// The X connection, opened on first use from the driver's `DISPLAY`.
#[derive(Default)]
pub struct XLink {
    x11: Mutex<Option<Arc<X11>>>,
}

impl XLink {
    /// `xauthority`: the X authority file the display takes (a headless
    /// desktop's `XAUTHORITY`); `None`, this process's own.
    pub fn get(&self, display: Option<&str>, xauthority: Option<&str>) -> Result<Arc<X11>> {
        let mut slot = self.x11.lock().unwrap();
        if let Some(x11) = slot.as_ref() {
            return Ok(x11.clone());
        }
        let display = display.ok_or_else(|| {
            Error::unsupported("no DISPLAY: input and capture need the app's X display")
                .with_suggestion(
                "run the app on an X display (uidrive_x11::Desktop starts one) and pass its env()",
            )
                .mentioning(uidrive_core::Term::DesktopStartsOne)
        })?;
        let x11 = Arc::new(X11::connect_as(
            display,
            xauthority.map(std::path::Path::new),
        )?);
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
    // GTK 3 answers the box of the window manager's frame around its
    // window (at its scale, if it scales), others the window's own.
    let framed = |w: &XWindow| {
        let Ok([left, right, above, below]) = x11.wm_frame_extents(w.id) else {
            return false;
        };
        if left + right + above + below == 0 {
            return false;
        }
        let outer = (
            f64::from(w.geometry.width + left + right),
            f64::from(w.geometry.height + above + below),
        );
        (1..=4).any(|k| {
            let k = f64::from(k);
            (outer.0 / k - f64::from(top.extents.2)).abs() <= 1.0
                && (outer.1 / k - f64::from(top.extents.3)).abs() <= 1.0
        })
    };
    let size = |w: &XWindow| {
        (w.geometry.width as i32, w.geometry.height as i32) == (top.extents.2, top.extents.3)
            || framed(w)
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
    /// The X connection; on the Wayland backend, `unsupported` (what needs
    /// it is X11's alone yet).
    pub fn x11(&self) -> Result<Arc<X11>> {
        if self.on_wayland() {
            return Err(crate::display::x11_only());
        }
        self.xlink.get(
            crate::bus::env_value(&self.env, "DISPLAY").as_deref(),
            crate::bus::env_value(&self.env, "XAUTHORITY").as_deref(),
        )
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
    let display = inner.display()?;
    crate::stats::note(|| format!("input through {}", display.name()));
    let placed = display.place(inner, top)?;
    if params.has_keyboard_events() {
        // No window manager gives the focus on a bare X server: give it first.
        display.focus(&placed)?;
    }
    display.send_input(&placed, &params.events, params.hold)
}

pub fn capture(driver: &AtspiDriver, params: &CaptureParams) -> Result<Capture> {
    let wanted = params.window;
    let (inner, top) = driver.run_work(move |inner| async move {
        let (_, top) = windows::resolve(&inner.link, &inner.app, &inner.ids, wanted).await?;
        Ok((inner, top))
    })?;
    // The window's content (less GTK 4's frame), where elements' bounds
    // count from, so a capture's pixels line up with them.
    let captured = inner.display().and_then(|display| {
        let placed = display.place(&inner, &top)?;
        display.capture(&placed)
    });
    captured.map_err(|e| driver.explain(e))
}

/// Where the window's content starts inside its X window. GTK 4 answers
/// every position from the corner of its window's content, and on X11 its
/// window with client-side decorations is bigger than that content by a
/// frame of its own (a resize border without a compositor, the shadow with
/// one, which `_GTK_FRAME_EXTENTS` gives). Other toolkits answer screen
/// positions, so nothing is added for them.
/// `scale` is the window's ([`crate::scale`]): GTK counts the content in its
/// own pixels, the frame is in the X server's.
pub fn content_inset(
    x11: &X11,
    app: &AppRef,
    top: &TopLevel,
    window: &XWindow,
    scale: f64,
) -> (i32, i32) {
    if app.toolkit != Toolkit::Gtk4 {
        return (0, 0);
    }
    let (width, height) = scaled_size(top, scale);
    let extra_w = window.geometry.width as i32 - width;
    let extra_h = window.geometry.height as i32 - height;
    if extra_w <= 0 && extra_h <= 0 || top.extents.2 <= 0 || top.extents.3 <= 0 {
        return (0, 0);
    }
    // The shadow as GTK says it, and the rest of the frame (border, padding) alike on both sides.
    let [left, right, above, below] = x11
        .frame_extents(window.id)
        .ok()
        .flatten()
        .map(|e| e.map(|v| v as i32))
        .unwrap_or_default();
    let inset = |extra: i32, before: i32, after: i32| {
        (before + (extra - before - after) / 2).clamp(0, extra.max(0))
    };
    (inset(extra_w, left, right), inset(extra_h, above, below))
}

/// The size of window `top`'s content in the X server's pixels.
fn scaled_size(top: &TopLevel, scale: f64) -> (i32, i32) {
    let (_, _, width, height) = top.extents;
    (
        (f64::from(width) * scale).round() as i32,
        (f64::from(height) * scale).round() as i32,
    )
}

/// The window's content on screen: the X window less GTK 4's frame.
pub fn content_bounds(inner: &Inner, top: &TopLevel, window: &XWindow) -> Bounds {
    let g = window.geometry;
    let (dx, dy) = inner
        .x11()
        .map(|x11| content_inset(&x11, &inner.app, top, window, inner.scale_of(top)))
        .unwrap_or_default();
    let (w, h) = if (dx, dy) == (0, 0) {
        (g.width as i32, g.height as i32)
    } else {
        scaled_size(top, inner.scale_of(top))
    };
    Bounds::new(
        f64::from(g.x + dx),
        f64::from(g.y + dy),
        f64::from(w),
        f64::from(h),
    )
}

/// The whole window round `content` (X window `id`'s), as a person sees it:
/// with the window manager's frame (`_NET_FRAME_EXTENTS`: title bar,
/// borders), the protocol's `bounds` of a window.
pub fn framed(x11: &X11, id: u32, content: Bounds) -> Bounds {
    let [left, right, above, below] = x11.wm_frame_extents(id).unwrap_or_default().map(f64::from);
    Bounds::new(
        content.x - left,
        content.y - above,
        content.width + left + right,
        content.height + above + below,
    )
}

/// A popover's surface is at most this much bigger than the popover on
/// each axis (its CSS margin, for a tail or a shadow).
const MAX_POPOVER_MARGIN: i32 = 64;
/// At most this many elements are asked whether they are a popover in one read.
pub(crate) const MAX_POPOVER_CANDIDATES: usize = 32;
/// `Component.GetLayer` of a popup (a popover).
const LAYER_POPUP: u32 = 5;

/// Whether `obj` says it is on the popup layer, as a GTK 4 popover does.
pub(crate) async fn on_popup_layer(inner: &Inner, obj: &ObjRef) -> bool {
    let (conn, dest) = inner.link.route(&obj.0);
    let layer =
        bus::call::<u32, _>(conn, dest, obj.1.as_str(), IFACE_COMPONENT, "GetLayer", &()).await;
    layer.ok() == Some(LAYER_POPUP)
}

/// The shift of the popover nearest around `from` that `found` placed
/// already: a widget inside a popover moves with it; (0, 0) outside any.
pub(crate) fn shift_around(
    found: &[(usize, Placed)],
    elements: &[Element],
    from: Option<usize>,
) -> (i32, i32) {
    let mut outer = from;
    while let Some(at) = outer {
        if let Some((_, placed)) = found.iter().find(|(i, _)| *i == at) {
            return placed.shift;
        }
        outer = elements[at].parent;
    }
    (0, 0)
}

/// An open GTK 4 popover of a window, as its last read placed it.
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    pub popover: ObjRef,
    /// Its surface, in the window's content coordinates.
    pub area: Rect,
    /// What is added to GTK's positions of the popover and everything in it.
    pub shift: (i32, i32),
}

/// The popovers each window's last read found, by window.
static PLACED: LazyLock<Mutex<HashMap<String, Vec<Placed>>>> = LazyLock::new(Default::default);

fn placed_key(inner: &Inner, window: &ObjRef) -> String {
    format!(
        "{}\n{}\n{}",
        inner.link.bus.server_guid(),
        window.0,
        window.1.as_str()
    )
}

/// GTK 4 (up to 4.12 at least) gives the elements inside a popover
/// positions as if the popover's surface sat where the widget it belongs to
/// is: it adds up widget offsets up to the window and never adds where the
/// popover's own surface (an override-redirect window on X11) was placed.
/// So each shown popover is matched with the app's popup X window it shows
/// in, and the popover and everything in it are moved by the difference:
/// their bounds become the window content's coordinates, where a real click
/// lands on them. A GTK 4 read costs two X round trips more; one with a
/// popover open, one `GetLayer` for each element that could be a popover
/// by its size (usually the popover alone). On Wayland (sway), where no
/// window says where a popup is, the compositor's placement is worked out
/// ([`crate::swaypopup`]).
pub async fn place_popovers(inner: &Inner, top: &TopLevel, elements: &mut [Element]) {
    if inner.app.toolkit != Toolkit::Gtk4 {
        return;
    }
    let key = placed_key(inner, &top.obj);
    let started = std::time::Instant::now();
    let found = if inner.on_wayland() {
        crate::swaypopup::find(inner, top, elements).await
    } else {
        find_popovers(inner, top, elements).await
    };
    crate::stats::note(|| format!("{} popovers placed in {:?}", found.len(), started.elapsed()));
    let mut shift: Vec<Option<(i32, i32)>> = vec![None; elements.len()];
    for (index, placed) in &found {
        shift[*index] = Some(placed.shift);
    }
    // A parent comes before its children: each takes its nearest popover's shift.
    for index in 0..elements.len() {
        if shift[index].is_none() {
            shift[index] = elements[index].parent.and_then(|p| shift[p]);
        }
    }
    for (element, shift) in elements.iter_mut().zip(shift) {
        if let (Some((dx, dy)), Some(extents)) = (shift, element.raw.extents.as_mut()) {
            extents.0 += dx;
            extents.1 += dy;
        }
    }
    let mut placed = PLACED.lock().unwrap_or_else(|e| e.into_inner());
    if found.is_empty() {
        placed.remove(&key);
        return;
    }
    if placed.len() > 1_000 {
        placed.clear();
    }
    placed.insert(key, found.into_iter().map(|(_, p)| p).collect());
}

/// Whether a GTK 4 app shows a popover now (an X popup window of its own):
/// what is inside one is placed from the whole read of the window, so a
/// read of only some elements' fields cannot place it. On Wayland no
/// window tells, so a GTK 4 app may always show one there.
pub fn shows_popover(inner: &Inner) -> bool {
    if inner.app.toolkit == Toolkit::Gtk4 && inner.on_wayland() {
        return true;
    }
    inner.app.toolkit == Toolkit::Gtk4
        && inner
            .x11()
            .ok()
            .and_then(|x11| x11.popups_of(inner.app.pid).ok())
            .is_some_and(|popups| !popups.is_empty())
}

/// The shown popovers among `elements` (GTK's positions), each with its surface.
async fn find_popovers(
    inner: &Inner,
    top: &TopLevel,
    elements: &[Element],
) -> Vec<(usize, Placed)> {
    let Ok(x11) = inner.x11() else {
        return Vec::new();
    };
    let mut popups = match x11.popups_of(inner.app.pid) {
        Ok(popups) if !popups.is_empty() => popups,
        _ => return Vec::new(),
    };
    let Some(window) = toplevel_window(&x11, inner, top) else {
        return Vec::new();
    };
    let scale = inner.scale_of(top);
    let (dx, dy) = content_inset(&x11, &inner.app, top, &window, scale);
    let origin = (window.geometry.x + dx, window.geometry.y + dy);
    // The popups' surfaces in GTK's pixels, counted from the same origin,
    // as GTK's positions are ([`crate::scale`]).
    if scale != 1.0 {
        let app_pixels = |v: i32| (f64::from(v) / scale).round() as i32;
        for popup in &mut popups {
            let g = &mut popup.geometry;
            g.x = origin.0 + app_pixels(g.x - origin.0);
            g.y = origin.1 + app_pixels(g.y - origin.1);
            g.width = app_pixels(g.width as i32).max(0) as u32;
            g.height = app_pixels(g.height as i32).max(0) as u32;
        }
    }
    // An element's extents and its parent's, as GTK answers them.
    type Box4 = (i32, i32, i32, i32);
    let place = |index: usize| -> Option<(Box4, Box4)> {
        let element = &elements[index];
        let parent = &elements[element.parent?];
        Some((element.raw.extents?, parent.raw.extents?))
    };
    // A popover's surface is the popover and its margin, and the popover
    // sits that margin away from the widget it belongs to.
    let fits = |index: usize, popup: &XWindow| {
        let Some(((x, y, w, h), (px, py, _, _))) = place(index) else {
            return false;
        };
        let (extra_w, extra_h) = (
            popup.geometry.width as i32 - w,
            popup.geometry.height as i32 - h,
        );
        w > 0
            && h > 0
            && (0..=MAX_POPOVER_MARGIN).contains(&extra_w)
            && (0..=MAX_POPOVER_MARGIN).contains(&extra_h)
            && (0..=extra_w).contains(&(x - px))
            && (0..=extra_h).contains(&(y - py))
    };
    // In the tree's order, a popover comes before what is inside it, so the
    // first candidate asked is usually the popover itself.
    let candidates: Vec<usize> = (1..elements.len())
        .filter(|&i| popups.iter().any(|p| fits(i, p)))
        .take(MAX_POPOVER_CANDIDATES)
        .collect();
    let mut free: Vec<&XWindow> = popups.iter().collect();
    let mut found: Vec<(usize, Placed)> = Vec::new();
    for index in candidates {
        if !free.iter().any(|p| fits(index, p)) {
            continue;
        }
        let Some(obj) = elements[index].raw.obj.as_ref() else {
            continue;
        };
        if !on_popup_layer(inner, obj).await {
            continue;
        }
        let Some((_, (px, py, pw, ph))) = place(index) else {
            continue;
        };
        // Where the widget it belongs to is on screen (inside a popover placed already, or not).
        let shift = shift_around(&found, elements, elements[index].parent);
        let anchor = Rect {
            x: origin.0 + px + shift.0,
            y: origin.1 + py + shift.1,
            width: pw.max(0) as u32,
            height: ph.max(0) as u32,
        };
        let best = free
            .iter()
            .enumerate()
            .filter(|(_, p)| fits(index, p))
            .min_by_key(|(_, p)| gap(&anchor, &p.geometry))
            .map(|(at, _)| at);
        let Some(at) = best else { continue };
        let surface = free.remove(at).geometry;
        found.push((
            index,
            Placed {
                popover: obj.clone(),
                area: Rect {
                    x: surface.x - origin.0,
                    y: surface.y - origin.1,
                    ..surface
                },
                shift: (surface.x - origin.0 - px, surface.y - origin.1 - py),
            },
        ));
        if free.is_empty() {
            break;
        }
    }
    found
}

/// The X window of each window a read placed popovers in, by window.
static TOPLEVELS: LazyLock<Mutex<HashMap<String, u32>>> = LazyLock::new(Default::default);

/// The X window showing `top`, where it is now: the one found before while
/// it is there (one round trip), else found again.
fn toplevel_window(x11: &X11, inner: &Inner, top: &TopLevel) -> Option<XWindow> {
    let key = placed_key(inner, &top.obj);
    let known = TOPLEVELS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .copied();
    if let Some(id) = known {
        if let Ok(geometry) = x11.window_geometry(id) {
            return Some(XWindow {
                id,
                pid: Some(inner.app.pid),
                title: top.title.clone(),
                class: String::new(),
                geometry,
                mapped: true,
                viewable: true,
                override_redirect: false,
            });
        }
    }
    let window = x_window_for(x11, inner.app.pid, top).ok()?;
    let mut known = TOPLEVELS.lock().unwrap_or_else(|e| e.into_inner());
    if known.len() > 1_000 {
        known.clear();
    }
    known.insert(key, window.id);
    Some(window)
}

/// How far apart two rectangles are (0 when they touch or overlap).
fn gap(a: &Rect, b: &Rect) -> i64 {
    let apart = |a0: i32, a1: u32, b0: i32, b1: u32| -> i64 {
        let (a0, b0) = (i64::from(a0), i64::from(b0));
        (b0 - (a0 + i64::from(a1)))
            .max(a0 - (b0 + i64::from(b1)))
            .max(0)
    };
    apart(a.x, a.width, b.x, b.width) + apart(a.y, a.height, b.y, b.height)
}

/// The deepest element under a point of the window's content, by the
/// toolkit's hit test. On a GTK 4 popover its last read placed there, the
/// test starts at the popover, in GTK's positions for it: a hit test from
/// the window never enters a popover.
pub async fn element_at(
    inner: &Inner,
    top: &TopLevel,
    x: i32,
    y: i32,
) -> Result<Option<ElementId>> {
    let popover = (inner.app.toolkit == Toolkit::Gtk4)
        .then(|| {
            let placed = PLACED.lock().unwrap_or_else(|e| e.into_inner());
            let inside = |p: &&Placed| {
                x >= p.area.x
                    && y >= p.area.y
                    && x < p.area.x + p.area.width as i32
                    && y < p.area.y + p.area.height as i32
            };
            // The last one shown is on top.
            placed
                .get(&placed_key(inner, &top.obj))
                .and_then(|list| list.iter().rev().find(inside).cloned())
        })
        .flatten();
    if let Some(p) = popover {
        let (gx, gy) = (x - p.shift.0, y - p.shift.1);
        match crate::visible::deepest_at(&inner.link, inner.app.toolkit, &p.popover, gx, gy).await {
            Ok(Some(hit)) => return Ok(Some(hit)),
            // On the popover's own margin: the click lands on the popover.
            Ok(None) => {
                return Ok(Some(crate::ids::element_id(
                    &p.popover.0,
                    p.popover.1.as_str(),
                )))
            }
            // The popover went since: the window answers.
            Err(_) => {}
        }
    }
    // Qt's trees answer a row above the one under the point (crate::qt).
    if crate::qt::is_qt(&inner.app) {
        return crate::qt::deepest_at(inner, &top.obj, x, y).await;
    }
    crate::visible::deepest_at(&inner.link, inner.app.toolkit, &top.obj, x, y).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_between_rectangles() {
        let r = |x, y, width, height| Rect {
            x,
            y,
            width,
            height,
        };
        assert_eq!(gap(&r(0, 0, 10, 10), &r(5, 5, 10, 10)), 0);
        assert_eq!(gap(&r(0, 0, 10, 10), &r(10, 0, 10, 10)), 0);
        assert_eq!(gap(&r(0, 0, 10, 10), &r(13, 14, 5, 5)), 7);
        assert_eq!(gap(&r(20, 20, 10, 10), &r(0, 0, 5, 5)), 30);
    }
}
