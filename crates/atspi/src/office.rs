//! LibreOffice's own boxes. Its gtk3 plugin draws the menu bar as a GTK
//! widget above the window's VCL content, and the VCL root pane holding that
//! content answers extents as if it began at the window's top: the root pane
//! of `Untitled 1 - LibreOffice Calc` reads (57, 50) where the GTK panel that
//! holds it, of the same size, reads (57, 75), 25 pixels lower: the menu
//! bar's height. Every element inside answers the same way (Calc's cell A1
//! reads the column header's row, Writer's paragraph the line above it;
//! LibreOffice's own hit test agrees with its extents), so a click at such a
//! box's centre lands 25 pixels above the element.

use crate::fetch::RawNode;
use crate::tree::Element;

/// AT-SPI's root pane role.
const ROOT_PANE: u32 = 46;

/// The elements with the boxes of each VCL root pane and its descendants
/// moved to where the root pane's holder is (the same size, another place);
/// `None` when no root pane is misplaced.
pub fn with_root_pane_moved(elements: &[Element]) -> Option<Vec<Element>> {
    let mut shift: Vec<Option<(i32, i32)>> = vec![None; elements.len()];
    for (index, element) in elements.iter().enumerate() {
        let parent = element.parent;
        shift[index] = parent.and_then(|p| shift[p]);
        if shift[index].is_none() && element.raw.role == ROOT_PANE {
            shift[index] = parent.and_then(|p| misplaced(&element.raw, &elements[p].raw));
        }
    }
    if shift.iter().all(Option::is_none) {
        return None;
    }
    let mut out = elements.to_vec();
    for (element, shift) in out.iter_mut().zip(shift) {
        if let (Some((dx, dy)), Some((x, y, w, h))) = (shift, element.raw.extents) {
            // Boxes a toolkit answers for nothing on screen stay as they are.
            if crate::fetch::is_box((x, y, w, h)) {
                element.raw.extents = Some((x + dx, y + dy, w, h));
            }
        }
    }
    Some(out)
}

/// How far the root pane `pane` is from its holder `holder`, when the two
/// have one size and differ in place.
fn misplaced(pane: &RawNode, holder: &RawNode) -> Option<(i32, i32)> {
    let (x, y, w, h) = pane.extents?;
    let (hx, hy, hw, hh) = holder.extents?;
    let same_size = (w, h) == (hw, hh) && w > 0 && h > 0;
    (same_size && (x, y) != (hx, hy)).then_some((hx - x, hy - y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(role: u32, extents: (i32, i32, i32, i32), parent: Option<usize>) -> Element {
        Element {
            raw: RawNode {
                role,
                extents: Some(extents),
                ..RawNode::default()
            },
            parent,
            in_scroller: false,
        }
    }

    #[test]
    fn a_misplaced_root_pane_and_what_it_holds_move_to_its_holder() {
        // Calc on a 1920x1200 screen: the GTK panel under the menu bar holds
        // the VCL root pane, which answers the menu bar's place.
        let elements = vec![
            element(23, (57, 50, 1805, 1100), None), // frame
            element(39, (57, 75, 1805, 1075), Some(0)),
            element(ROOT_PANE, (57, 50, 1805, 1075), Some(1)),
            element(35, (98, 228, 82, 17), Some(2)), // cell A1
            element(35, (-2147483648, -2147483648, 1, 1), Some(2)),
            element(39, (57, 50, 1805, 25), Some(0)), // the GTK menu bar's panel
        ];
        let moved = with_root_pane_moved(&elements).expect("moved");
        let at = |i: usize| moved[i].raw.extents.unwrap();
        assert_eq!(at(2), (57, 75, 1805, 1075));
        assert_eq!(at(3), (98, 253, 82, 17));
        assert_eq!(
            at(4),
            (-2147483648, -2147483648, 1, 1),
            "nowhere stays nowhere"
        );
        assert_eq!(at(5), (57, 50, 1805, 25), "outside the root pane: unmoved");
        // A root pane in its holder's place moves nothing.
        let placed = vec![
            element(39, (57, 50, 1805, 1100), None),
            element(ROOT_PANE, (57, 50, 1805, 1100), Some(0)),
        ];
        assert!(with_root_pane_moved(&placed).is_none());
    }
}
