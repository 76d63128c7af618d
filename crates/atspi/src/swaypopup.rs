//! Where sway shows a GTK 4 popover (an `xdg_popup`) on uidrive's Wayland
//! desktop. GTK gives a popover and everything in it positions as if its
//! surface sat at the corner of the widget it belongs to ([`crate::desktop`]
//! moves them where the popup really is). On X11 the popup's window says
//! where; on Wayland nothing does: sway's tree does not list popups and no
//! protocol tells a client where another client's popup is. So the popup's
//! place is worked out the way the compositor works it out:
//!
//! - GTK 4 (`gtkpopover.c` `create_popup_layout`, `gdkpopup-wayland.c`)
//!   asks a positioner of the popup's geometry (its surface without the
//!   contents' shadow) anchored at the bottom centre of the widget's box,
//!   hanging below it, centred; it may be flipped above (`flip_y`), slid
//!   sideways (`slide_x`) or resized;
//! - sway 1.7 (`popup_unconstrain`) keeps it inside the window's output,
//!   with wlroots 0.15 (`wlr_xdg_popup_unconstrain_from_box`): a flip is
//!   tried first, then a slide, then a resize.
//!
//! The shadow's width is read from the popover's first child: the child
//! sits inside the contents' border, so its distance from the surface's
//! edge is the shadow, the border and, on the side toward the widget, the
//! popover's arrow. A popover that sway would resize is left as GTK gives
//! it (not placed): its size then is not the one GTK asked.

use crate::desktop::{on_popup_layer, shift_around, Placed, MAX_POPOVER_CANDIDATES};
use crate::discovery::TopLevel;
use crate::driver::Inner;
use crate::tree::Element;
use uidrive_wayland::sway;
use uidrive_x11::Rect;

/// The height of a GTK 4 popover's arrow (`TAIL_HEIGHT` in `gtkpopover.c`).
const ARROW: i32 = 12;
/// The width of the border of a popover's contents in GTK 4's and
/// libadwaita's stylesheets: between the shadow and the contents' child.
const BORDER: i32 = 1;

/// A box as GTK gives it: x, y, width, height.
type Box4 = (i32, i32, i32, i32);

/// The shown popovers among `elements` (GTK's positions), each with where
/// sway shows its surface, in the window content's coordinates.
pub(crate) async fn find(
    inner: &Inner,
    top: &TopLevel,
    elements: &[Element],
) -> Vec<(usize, Placed)> {
    let Ok(socket) = crate::swaywm::swaysock(inner) else {
        return Vec::new();
    };
    let Ok(view) =
        sway::views(&socket).and_then(|views| crate::display::view_for(views, inner.app.pid, top))
    else {
        return Vec::new();
    };
    // GTK 4 counts from the window's content (its xdg geometry); sway
    // keeps popups inside the output, which from there is here:
    let (cx, cy, _, _) = view.content;
    let (ox, oy, ow, oh) = view.output;
    let output = (ox - cx, oy - cy, ow as i32, oh as i32);
    let extents = |i: usize| elements[i].raw.extents;
    // GTK puts a popover at its widget's corner, larger than the widget.
    let at_corner = |i: usize| {
        let (Some((x, y, w, h)), Some((px, py, pw, ph))) =
            (extents(i), elements[i].parent.and_then(extents))
        else {
            return false;
        };
        (x, y) == (px, py) && w > 0 && h > 0 && (w > pw || h > ph)
    };
    let candidates: Vec<usize> = (1..elements.len())
        .filter(|&i| at_corner(i))
        .take(MAX_POPOVER_CANDIDATES)
        .collect();
    let mut found: Vec<(usize, Placed)> = Vec::new();
    for index in candidates {
        let Some(obj) = elements[index].raw.obj.as_ref() else {
            continue;
        };
        if !on_popup_layer(inner, obj).await {
            continue;
        }
        let (Some(surface), Some(parent)) = (extents(index), elements[index].parent) else {
            continue;
        };
        let Some(anchor) = extents(parent) else {
            continue;
        };
        let child = (index + 1..elements.len())
            .take_while(|&j| elements[j].parent.is_some_and(|p| p >= index))
            .find(|&j| elements[j].parent == Some(index))
            .and_then(extents);
        let Some(child) = child else { continue };
        // The widget's own place: inside a popover placed already, or not.
        let shift = shift_around(&found, elements, Some(parent));
        let anchor = (anchor.0 + shift.0, anchor.1 + shift.1, anchor.2, anchor.3);
        let insets = (
            child.0 - surface.0,
            child.1 - surface.1,
            surface.0 + surface.2 - (child.0 + child.2),
            surface.1 + surface.3 - (child.1 + child.3),
        );
        let Some((sx, sy)) = popup_surface(anchor, (surface.2, surface.3), insets, output) else {
            continue;
        };
        found.push((
            index,
            Placed {
                popover: obj.clone(),
                area: Rect {
                    x: sx,
                    y: sy,
                    width: surface.2 as u32,
                    height: surface.3 as u32,
                },
                shift: (sx - surface.0, sy - surface.1),
            },
        ));
    }
    found
}

/// Where sway shows the surface of a popover below `anchor` (the widget's
/// box), of `size`, whose first child is `insets` (left, top, right,
/// bottom) inside it, with the output at `output`: all in the window
/// content's coordinates. `None` when sway resizes it.
fn popup_surface(
    anchor: Box4,
    size: (i32, i32),
    insets: (i32, i32, i32, i32),
    output: Box4,
) -> Option<(i32, i32)> {
    let (ax, ay, aw, ah) = anchor;
    let (aw, ah) = (aw.max(1), ah.max(1));
    let (width, height) = size;
    let (left, top, right, bottom) = insets;
    let (ox, oy, ow, oh) = output;
    // The shadow on each side; the arrow is on the side toward the widget.
    let (shadow_left, shadow_right) = (left - BORDER, right - BORDER);
    let geometry_w = width - shadow_left - shadow_right;
    // Top and bottom shadows plus the arrow, whichever side it is on.
    let geometry_h = height - (top - BORDER) - (bottom - BORDER) + ARROW;
    if geometry_w <= 0 || geometry_h <= 0 || geometry_w > ow {
        return None;
    }
    // Below the widget, centred on it (integer halves, as wlroots takes them).
    let mut gx = ax + aw / 2 - geometry_w / 2;
    let below = ay + ah;
    let above = ay - geometry_h;
    let fits = |gy: i32| gy >= oy && gy + geometry_h <= oy + oh;
    // Flipped above only if it then fits; else sway resizes it.
    let y = if fits(below) {
        below - (top - BORDER - ARROW)
    } else if fits(above) {
        above - (top - BORDER)
    } else {
        return None;
    };
    if gx < ox {
        gx = ox;
    } else if gx + geometry_w > ox + ow {
        gx = ox + ow - geometry_w;
    }
    Some((gx - shadow_left, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gnome-text-editor 43 (GTK 4.8, libadwaita 1.2) on a 1920x1200
    /// output, its window filling it: the main menu's popover, its Menu
    /// button at the right edge. Measured in a capture: the popover's
    /// border runs from x 1680 to 1919, so sway slid it 57 pixels left; its
    /// contents' top border is at y 52, below a 12-pixel arrow from y 40.
    #[test]
    fn a_popover_past_the_right_edge_slides_left_as_sway_slides_it() {
        let button = (1840, 6, 34, 34);
        // The popover at the button's corner, 286x587; its first child at (1864, 40) 238x527.
        let insets = (24, 34, 24, 26);
        let at = popup_surface(button, (286, 587), insets, (0, 0, 1920, 1200));
        // Surface: shadow 23 left of the border at 1680; 21 above the arrow at 40.
        assert_eq!(at, Some((1657, 19)));
    }

    #[test]
    fn a_popover_with_room_hangs_centred_below_its_widget() {
        let button = (100, 6, 34, 34);
        let at = popup_surface(button, (286, 587), (24, 34, 24, 26), (0, 0, 1920, 1200));
        // Geometry 240 wide centred on x 117: from 117 - 120 = -3, slid to 0.
        assert_eq!(at, Some((-23, 19)));
        let button = (800, 6, 34, 34);
        let at = popup_surface(button, (286, 587), (24, 34, 24, 26), (0, 0, 1920, 1200));
        assert_eq!(at, Some((817 - 120 - 23, 19)));
    }

    #[test]
    fn a_popover_with_no_room_below_flips_above_and_one_with_room_nowhere_is_left() {
        // The widget near the bottom: below it the geometry (587 - 21 - 25 = 541) does not fit.
        let button = (800, 1100, 34, 34);
        let at = popup_surface(button, (286, 587), (24, 22, 24, 38), (0, 0, 1920, 1200));
        // Above: geometry from 1100 - 541 = 559, the surface 21 higher.
        assert_eq!(at, Some((817 - 120 - 23, 559 - 21)));
        let tall = popup_surface(
            (800, 600, 34, 34),
            (286, 1300),
            (24, 34, 24, 26),
            (0, 0, 1920, 1200),
        );
        assert_eq!(tall, None, "sway resizes it: not placed");
    }
}
