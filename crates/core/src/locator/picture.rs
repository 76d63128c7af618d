//! What an element looks like: the pixels of its box in a capture of its
//! window. The witness of last resort for an action whose effect the tree
//! does not show: a check item that toggled where accessibility cannot see
//! it still draws otherwise, while an action the app ignored leaves the
//! element as it was drawn.

use super::Locator;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{Bounds, Capture, CaptureParams, Node, WindowId};

/// The pixels of one element's box, row by row, as decoded from a capture.
#[derive(Debug, PartialEq)]
pub(crate) struct Picture(Vec<u8>);

impl Locator {
    /// The element's picture now; `None` when it has no box, the driver
    /// captures nothing, or the box is not in the capture.
    pub(crate) fn picture_of(&self, window: WindowId, node: &Node) -> Option<Picture> {
        let bounds = node.bounds.filter(|b| !b.is_empty())?;
        let capture = self
            .driver
            .capture(&CaptureParams {
                window: Some(window),
            })
            .ok()?;
        crop(&capture.png, bounds).map(Picture)
    }
}

/// The pixels of `bounds` (window coordinates, as a capture's) in `png`,
/// or `None` when it does not decode or the box lies outside it.
pub(crate) fn crop(png: &[u8], bounds: Bounds) -> Option<Vec<u8>> {
    let mut decoder = png::Decoder::new(png);
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().ok()?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).ok()?;
    let per_pixel = frame.line_size / frame.width as usize;
    let clamp = |v: f64, most: u32| (v.max(0.0) as u32).min(most);
    let (left, right) = (
        clamp(bounds.x, frame.width),
        clamp(bounds.x + bounds.width, frame.width),
    );
    let (top, bottom) = (
        clamp(bounds.y, frame.height),
        clamp(bounds.y + bounds.height, frame.height),
    );
    if left >= right || top >= bottom {
        return None;
    }
    let mut kept = Vec::new();
    for row in top..bottom {
        let start = row as usize * frame.line_size;
        kept.extend_from_slice(
            &pixels[start + left as usize * per_pixel..start + right as usize * per_pixel],
        );
    }
    Some(kept)
}

impl Locator {
    /// A PNG of the one element: its box cut from a capture of its window
    /// (waited for as a read is). Fails with `not_actionable` when it has no
    /// box on screen or its box lies outside the window's capture.
    pub fn screenshot(&self) -> Result<Capture> {
        let (tree, node) = self.resolve_one("screenshot")?;
        let no_box = || {
            Error::new(
                ErrorCode::NotActionable,
                format!("{self} has no box on the screen to capture"),
            )
            .with_suggestion("scroll it into view (scroll_into_view), or capture its window")
        };
        let bounds = node.bounds.filter(|b| !b.is_empty()).ok_or_else(no_box)?;
        let capture = self.driver.capture(&CaptureParams {
            window: Some(tree.window),
        })?;
        let cut = cut(&capture.png, bounds).ok_or_else(no_box)?;
        Ok(Capture {
            png: cut.png,
            width: cut.width,
            height: cut.height,
            clipped: cut.clipped || capture.clipped,
            extra: Default::default(),
        })
    }
}

/// A part of a PNG, as a PNG of its own.
struct Cut {
    png: Vec<u8>,
    width: u32,
    height: u32,
    /// Part of the box lay outside the picture and is not in the cut.
    clipped: bool,
}

/// The part of `png` that `bounds` covers, encoded again.
fn cut(png: &[u8], bounds: Bounds) -> Option<Cut> {
    let mut decoder = png::Decoder::new(png);
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().ok()?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).ok()?;
    let per_pixel = frame.line_size / frame.width as usize;
    let clamp = |v: f64, most: u32| (v.max(0.0) as u32).min(most);
    let (left, right) = (
        clamp(bounds.x.floor(), frame.width),
        clamp((bounds.x + bounds.width).ceil(), frame.width),
    );
    let (top, bottom) = (
        clamp(bounds.y.floor(), frame.height),
        clamp((bounds.y + bounds.height).ceil(), frame.height),
    );
    if left >= right || top >= bottom {
        return None;
    }
    let clipped = bounds.x < 0.0
        || bounds.y < 0.0
        || (bounds.x + bounds.width).ceil() > f64::from(frame.width)
        || (bounds.y + bounds.height).ceil() > f64::from(frame.height);
    let mut kept = Vec::new();
    for row in top..bottom {
        let start = row as usize * frame.line_size;
        kept.extend_from_slice(
            &pixels[start + left as usize * per_pixel..start + right as usize * per_pixel],
        );
    }
    let (width, height) = (right - left, bottom - top);
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(frame.color_type);
        encoder.set_depth(frame.bit_depth);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&kept).ok()?;
    }
    Some(Cut {
        png: out,
        width,
        height,
        clipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_cut_from_the_capture_and_one_outside_is_none() {
        let png = crate::png::solid(10, 8, [1, 2, 3]);
        let cut = crop(&png, Bounds::new(2.0, 3.0, 4.0, 2.0)).unwrap();
        assert_eq!(cut.len(), 4 * 2 * 3);
        assert!(cut.chunks(3).all(|p| p == [1, 2, 3]));
        // Cut at the capture's edge.
        assert_eq!(
            crop(&png, Bounds::new(8.0, 0.0, 5.0, 1.0)).unwrap().len(),
            2 * 3
        );
        assert_eq!(crop(&png, Bounds::new(20.0, 0.0, 5.0, 5.0)), None);
        assert_eq!(crop(b"not a png", Bounds::new(0.0, 0.0, 1.0, 1.0)), None);
    }

    #[test]
    fn an_element_screenshot_is_a_png_of_its_box() {
        use crate::protocol::Role;
        use crate::{App, MemoryDriver, RoleQuery};
        let app = App::new(std::sync::Arc::new(MemoryDriver::new()));
        let button = app.get_by_role(Role::Button, RoleQuery::name("Add"));
        let bounds = button.bounds().unwrap().unwrap();
        let png = button.screenshot().unwrap().png;
        let decoder = png::Decoder::new(png.as_slice());
        let info = decoder.read_info().unwrap().info().clone();
        assert_eq!(
            (info.width, info.height),
            (bounds.width as u32, bounds.height as u32)
        );
    }
}
