//! The scale between a window's AT-SPI box and its X window.
//!
//! Toolkits that scale (Qt's device pixel ratio, `QT_SCALE_FACTOR`; GTK's
//! `GDK_SCALE`; KDE's high-DPI setting) answer AT-SPI boxes in their own
//! unscaled pixels, while the X server, real input and captures count device
//! pixels: Qt at `QT_SCALE_FACTOR=1.5` answers a 1050×750 window as 700×500.
//! The ratio of the two sizes of the window is the app's scale; bounds are
//! given in device pixels (what a capture shows and a click hits), and points
//! asked of the app's hit test are divided by it.
//!
//! The scale is kept per window and AT-SPI size: a window that keeps its size
//! keeps its scale, and is looked up on the X server again when it changes.

use crate::discovery::{Toolkit, TopLevel};
use std::collections::HashMap;
use std::sync::Mutex;

/// A ratio closer to 1 than this is no scale: rounding of odd sizes.
const NO_SCALE: f64 = 0.02;

/// Each window's scale, by window and AT-SPI size.
#[derive(Default)]
pub struct Scales(Mutex<HashMap<(String, i32, i32), Measured>>);

/// A window's scale and its content's inset ([`crate::driver::Inner::frame_of`]).
type Measured = (f64, (i32, i32));

/// Where a window's elements are counted from, and how much they are scaled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The window's origin as the app answers it (its own pixels).
    pub origin: (i32, i32),
    /// Device pixels per app pixel.
    pub scale: f64,
}

impl Frame {
    #[cfg(test)]
    pub fn unscaled(origin: (i32, i32)) -> Frame {
        Frame { origin, scale: 1.0 }
    }
}

/// The scale of a window the app answers `atspi` (width, height) for and the
/// X server shows `x` for: the ratio of the two when both axes agree, else 1.
/// GTK 4 is asked [`gtk4_ratio`] instead: its frame makes the axes differ.
/// `frame` is the window's `_GTK_FRAME_EXTENTS` (left, right, top, bottom)
/// for GTK 4, the window manager's frame (`_NET_FRAME_EXTENTS`) for others.
pub fn ratio(toolkit: Toolkit, atspi: (i32, i32), x: (u32, u32), frame: [u32; 4]) -> f64 {
    if atspi.0 <= 0 || atspi.1 <= 0 {
        return 1.0;
    }
    if toolkit == Toolkit::Gtk4 {
        return gtk4_ratio(atspi, x, frame);
    }
    let inside = plain_ratio(atspi, x);
    let [left, right, top, bottom] = frame;
    if inside != 1.0 || frame == [0; 4] {
        return inside;
    }
    // GTK 3 answers the box of the window manager's frame around its window.
    plain_ratio(atspi, (x.0 + left + right, x.1 + top + bottom))
}

/// The ratio of the two sizes when both axes agree, else 1.
fn plain_ratio(atspi: (i32, i32), x: (u32, u32)) -> f64 {
    let across = f64::from(x.0) / f64::from(atspi.0);
    let down = f64::from(x.1) / f64::from(atspi.1);
    // Each size is rounded to whole pixels on both sides.
    let slack = 2.0 / f64::from(atspi.0.min(atspi.1)) + 0.005;
    if (across - down).abs() > slack || (across - 1.0).abs() < NO_SCALE {
        return 1.0;
    }
    (across + down) / 2.0
}

/// GTK 4 scales by whole numbers on X11 (`GDK_SCALE`), and its X window is
/// its content (what AT-SPI answers) times the scale, plus its frame: the
/// shadow `_GTK_FRAME_EXTENTS` gives (in device pixels), and without a
/// compositor a resize border of the same width on every side. So the
/// scale is the largest whole number that leaves the same border on both
/// axes, and a small one: a window of 350×230 shown as 720×480 is at 2,
/// with 10 device pixels of border all round.
pub fn gtk4_ratio(atspi: (i32, i32), x: (u32, u32), frame: [u32; 4]) -> f64 {
    let [left, right, top, bottom] = frame.map(i64::from);
    let (x_w, x_h) = (i64::from(x.0) - left - right, i64::from(x.1) - top - bottom);
    (1..=MAX_GTK4_SCALE)
        .rev()
        .find(|&k| {
            let (border_w, border_h) = (x_w - k * i64::from(atspi.0), x_h - k * i64::from(atspi.1));
            border_w >= 0 && (border_w - border_h).abs() <= 1 && border_w <= 2 * MAX_GTK4_BORDER * k
        })
        .unwrap_or(1) as f64
}

/// The largest scale GTK 4 is looked for at.
const MAX_GTK4_SCALE: i64 = 4;
/// The widest resize border GTK 4 draws round a window, in its own pixels.
const MAX_GTK4_BORDER: i64 = 32;

impl crate::driver::Inner {
    pub fn frame_of(&self, top: &TopLevel) -> Frame {
        if let Some(origin) = self.unboxed_origin(top) {
            return Frame { origin, scale: 1.0 };
        }
        let (scale, inset) = self.measure(top);
        Frame {
            origin: (top.extents.0 + inset.0, top.extents.1 + inset.1),
            scale,
        }
    }

    /// The content's place on screen, from the X server, for a window the
    /// app gives no box (Java's ATK bridge answers -1 for a frame's extents
    /// while its components' screen positions are right: Java reads the
    /// window manager's `_NET_FRAME_EXTENTS` and counts the title bar in).
    fn unboxed_origin(&self, top: &TopLevel) -> Option<(i32, i32)> {
        let (_, _, width, height) = top.extents;
        if width > 0 && height > 0 {
            return None;
        }
        let shown = self.x_window(top)?;
        Some((shown.geometry.x, shown.geometry.y))
    }

    pub fn scale_of(&self, top: &TopLevel) -> f64 {
        self.measure(top).0
    }

    /// The window's scale, and where its content starts inside the box the
    /// app answers for it (app pixels): GTK 3 answers the box of the window
    /// manager's frame around its window, title bar included, where the
    /// content starts below and right of that frame's edge.
    fn measure(&self, top: &TopLevel) -> Measured {
        let (_, _, width, height) = top.extents;
        let key = (
            format!("{}{}", top.obj.0, top.obj.1.as_str()),
            width,
            height,
        );
        if let Some(measured) = self.scales.0.lock().unwrap().get(&key) {
            return *measured;
        }
        let Some(shown) = self.x_window(top) else {
            return (1.0, (0, 0));
        };
        let frame = match self.app.toolkit {
            Toolkit::Gtk4 => self
                .x11()
                .ok()
                .and_then(|x11| x11.frame_extents(shown.id).ok().flatten())
                .unwrap_or_default(),
            // The window manager's frame: GTK 3 answers its window's box with it.
            _ => self
                .x11()
                .ok()
                .and_then(|x11| x11.wm_frame_extents(shown.id).ok())
                .unwrap_or_default(),
        };
        let x_size = (shown.geometry.width, shown.geometry.height);
        let scale = ratio(self.app.toolkit, (width, height), x_size, frame);
        let inset = match self.app.toolkit {
            Toolkit::Gtk4 => (0, 0),
            _ => frame_inset((width, height), x_size, frame, scale),
        };
        let mut scales = self.scales.0.lock().unwrap();
        if scales.len() > 1_000 {
            scales.clear();
        }
        scales.insert(key, (scale, inset));
        (scale, inset)
    }
}

/// Where the content starts inside the app's box of its window, in app
/// pixels: the frame's left and top when that box is the window manager's
/// frame (its size is the X window's plus the frame, at `scale`), else none.
pub fn frame_inset(atspi: (i32, i32), x: (u32, u32), frame: [u32; 4], scale: f64) -> (i32, i32) {
    let [left, right, top, bottom] = frame.map(f64::from);
    if frame == [0; 4] || scale <= 0.0 {
        return (0, 0);
    }
    let framed = (
        (f64::from(x.0) + left + right) / scale,
        (f64::from(x.1) + top + bottom) / scale,
    );
    let near = |a: i32, b: f64| (f64::from(a) - b).abs() <= 2.0;
    if near(atspi.0, framed.0) && near(atspi.1, framed.1) {
        ((left / scale).round() as i32, (top / scale).round() as i32)
    } else {
        (0, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_the_ratio_of_the_window_sizes_when_both_axes_agree() {
        let other = Toolkit::Other;
        let ratio = |toolkit, atspi, x| ratio(toolkit, atspi, x, [0; 4]);
        assert_eq!(
            ratio(other, (700, 500), (1050, 750)),
            1.5,
            "QT_SCALE_FACTOR=1.5"
        );
        assert_eq!(ratio(other, (400, 300), (800, 600)), 2.0, "GDK_SCALE=2");
        let kde = ratio(other, (692, 439), (720, 457));
        assert!((kde - 100.0 / 96.0).abs() < 0.01, "KDE at 100 dpi: {kde}");
        assert_eq!(ratio(other, (700, 500), (700, 500)), 1.0);
        assert_eq!(ratio(other, (700, 500), (701, 499)), 1.0, "rounding");
        assert_eq!(ratio(other, (700, 500), (900, 500)), 1.0, "axes disagree");
        assert_eq!(ratio(other, (0, 0), (900, 500)), 1.0, "no box");
        // GTK 3 at GDK_SCALE=2 under openbox answers its frame's box.
        let framed = super::ratio(other, (195, 132), (388, 238), [1, 1, 25, 1]);
        assert_eq!(framed, 2.0, "the frame counted in");
        let unscaled = super::ratio(other, (390, 264), (388, 238), [1, 1, 25, 1]);
        assert_eq!(unscaled, 1.0, "a frame alone is no scale");
        let frame = [1, 1, 25, 1];
        assert_eq!(frame_inset((195, 132), (388, 238), frame, 2.0), (1, 13));
        assert_eq!(frame_inset((390, 264), (388, 238), frame, 1.0), (1, 25));
        assert_eq!(
            frame_inset((388, 238), (388, 238), frame, 1.0),
            (0, 0),
            "the content's box"
        );
    }

    #[test]
    fn gtk4s_scale_is_the_whole_number_that_leaves_one_border_all_round() {
        let none = [0; 4];
        // Measured: tests/apps/gtk4_check.py (a header bar, no compositor).
        assert_eq!(gtk4_ratio((350, 230), (360, 240), none), 1.0, "GDK_SCALE=1");
        assert_eq!(gtk4_ratio((350, 230), (720, 480), none), 2.0, "GDK_SCALE=2");
        // gtk4-demo at GDK_SCALE=2: 790×590 on AT-SPI, 1600×1200 on X.
        assert_eq!(gtk4_ratio((790, 590), (1600, 1200), none), 2.0);
        // No frame (server-side decorations), and a shadow GTK announces.
        assert_eq!(gtk4_ratio((360, 240), (720, 480), none), 2.0);
        assert_eq!(gtk4_ratio((360, 240), (360, 240), none), 1.0);
        let shadow = [46, 46, 40, 52];
        assert_eq!(gtk4_ratio((360, 240), (812, 572), shadow), 2.0);
        assert_eq!(gtk4_ratio((360, 240), (452, 332), shadow), 1.0);
        // A square window at 1 is not taken as 2: that would leave no border.
        assert_eq!(gtk4_ratio((300, 300), (310, 310), none), 1.0);
        // Sizes that fit no whole scale with one border all round read as 1.
        assert_eq!(gtk4_ratio((700, 500), (1000, 1000), none), 1.0);
    }
}
