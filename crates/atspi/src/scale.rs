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
pub struct Scales(Mutex<HashMap<(String, i32, i32), f64>>);

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
/// GTK 4 draws its frame (shadow, border) inside its X window, which makes
/// the X window larger on each axis by a different ratio: it reads as 1.
pub fn ratio(toolkit: Toolkit, atspi: (i32, i32), x: (u32, u32)) -> f64 {
    if toolkit == Toolkit::Gtk4 || atspi.0 <= 0 || atspi.1 <= 0 {
        return 1.0;
    }
    let across = f64::from(x.0) / f64::from(atspi.0);
    let down = f64::from(x.1) / f64::from(atspi.1);
    // Each size is rounded to whole pixels on both sides.
    let slack = 2.0 / f64::from(atspi.0.min(atspi.1)) + 0.005;
    if (across - down).abs() > slack || (across - 1.0).abs() < NO_SCALE {
        return 1.0;
    }
    (across + down) / 2.0
}

impl crate::driver::Inner {
    /// The frame of window `top`, whose box the read answered.
    pub fn frame_of(&self, top: &TopLevel) -> Frame {
        let origin = (top.extents.0, top.extents.1);
        Frame {
            origin,
            scale: self.scale_of(top),
        }
    }

    /// The scale of window `top` ([`ratio`]); 1 where the X server is out of reach.
    pub fn scale_of(&self, top: &TopLevel) -> f64 {
        let (_, _, width, height) = top.extents;
        let key = (
            format!("{}{}", top.obj.0, top.obj.1.as_str()),
            width,
            height,
        );
        if let Some(scale) = self.scales.0.lock().unwrap().get(&key) {
            return *scale;
        }
        let Some(shown) = self.x_window(top) else {
            return 1.0;
        };
        let scale = ratio(
            self.app.toolkit,
            (width, height),
            (shown.geometry.width, shown.geometry.height),
        );
        let mut scales = self.scales.0.lock().unwrap();
        if scales.len() > 1_000 {
            scales.clear();
        }
        scales.insert(key, scale);
        scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_the_ratio_of_the_window_sizes_when_both_axes_agree() {
        let other = Toolkit::Other;
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
        assert_eq!(ratio(Toolkit::Gtk4, (700, 500), (1400, 1000)), 1.0);
    }
}
