//! A read's elements as protocol nodes: labels, values as the screen shows
//! them, bounds from the window's content, states and the actions an
//! element really offers; and the objects behind the ids of earlier reads.

use crate::bus::ObjRef;
use crate::discovery::{AppRef, Toolkit};
use crate::fetch::{is_box, Ifaces, RawNode, NOWHERE};
use crate::ids::element_id;
use crate::roles;
use crate::scale::Frame;
use crate::states::{protocol_states, st};
use std::collections::HashMap;
use uidrive_core::protocol::{
    Action, Bounds, ElementId, ElementKey, NameSource, Node, Role, State,
};

/// One element read from the app, with where it sits in the tree.
#[derive(Debug, Clone)]
pub struct Element {
    pub raw: RawNode,
    pub parent: Option<usize>,
    /// Whether a scrolled container holds it (so `scrollIntoView` means something).
    pub in_scroller: bool,
}

pub use crate::exec::read_elements;

/// The objects behind the element ids of earlier reads, with the window each was in.
#[derive(Debug, Default)]
pub struct Known {
    objects: std::sync::Mutex<HashMap<ElementId, (ObjRef, ObjRef)>>,
}

impl Known {
    pub fn remember(&self, elements: &[Element], window: &ObjRef) {
        let mut map = self.objects.lock().unwrap();
        if map.len() > 100_000 {
            map.clear();
        }
        for element in elements {
            if let Some(obj) = &element.raw.obj {
                map.insert(id_of(&element.raw), (obj.clone(), window.clone()));
            }
        }
    }

    /// The window an earlier read saw `id` in, if one did.
    pub fn window_of(&self, id: ElementId) -> Option<ObjRef> {
        let map = self.objects.lock().unwrap();
        map.get(&id).map(|(_, window)| window.clone())
    }

    /// The object of `id`, if an earlier read saw it in `window`.
    pub fn get(&self, id: ElementId, window: &ObjRef) -> Option<ObjRef> {
        let map = self.objects.lock().unwrap();
        map.get(&id)
            .filter(|(_, w)| w == window)
            .map(|(obj, _)| obj.clone())
    }
}

/// Maps read elements to protocol nodes, with bounds relative to the window's content.
pub fn to_nodes(
    elements: &[Element],
    app: &AppRef,
    frame: Frame,
) -> (Vec<Node>, Option<ElementId>) {
    let replaced = with_embedded_text(elements);
    let elements = replaced.as_deref().unwrap_or(elements);
    let moved = crate::profile::is_libreoffice(&app.name)
        .then(|| crate::office::with_root_pane_moved(elements))
        .flatten();
    let elements = moved.as_deref().unwrap_or(elements);
    let ids: Vec<ElementId> = elements.iter().map(|e| id_of(&e.raw)).collect();
    let names: HashMap<String, &str> = elements
        .iter()
        .filter_map(|e| e.raw.obj.as_ref().map(|o| (key_of(o), e.raw.name.as_str())))
        .collect();
    // The text of each element's first label child: GTK 4 buttons get their label from it.
    let mut child_label: Vec<Option<&str>> = vec![None; elements.len()];
    for element in elements {
        if let (Some(parent), 29) = (element.parent, element.raw.role) {
            child_label[parent].get_or_insert(element.raw.name.as_str());
        }
    }
    let mut focus = None;
    let mut nodes = elements
        .iter()
        .enumerate()
        .map(|(index, element)| {
            let raw = &element.raw;
            if raw.states.has(st::FOCUSED) && index > 0 {
                focus = Some(ids[index]);
            }
            let mut node = to_node(
                element,
                ids[index],
                element.parent.map(|p| ids[p]),
                app.toolkit,
                frame,
                &names,
            );
            if app.toolkit == Toolkit::Gtk4 {
                let raw = &element.raw;
                if let Some(label) = gtk4_label(raw.role, &raw.name, child_label[index]) {
                    node.label = label;
                }
            }
            node
        })
        .collect::<Vec<_>>();
    if crate::java::is_java(app) {
        crate::java::list_items(&mut nodes);
    }
    if app.toolkit.sets_showing() {
        hide_inside_hidden(elements, &mut nodes);
    }
    hide_under_headers(elements, &mut nodes);
    for (index, element) in elements.iter().enumerate() {
        if only_selects_in_popup(elements, element) {
            nodes[index].actions.retain(|a| *a != Action::Press);
        }
    }
    uidrive_core::naming::name_for_people(&mut nodes);
    crate::one_widget::merge_doubles(&mut nodes, &mut focus);
    (nodes, focus)
}

fn to_node(
    element: &Element,
    id: ElementId,
    parent: Option<ElementId>,
    toolkit: Toolkit,
    frame: Frame,
    names: &HashMap<String, &str>,
) -> Node {
    let raw = &element.raw;
    let mut node = Node {
        id,
        parent,
        role: roles::protocol_role(raw.role),
        ..Node::default()
    };
    let related = |kind: u32| -> Vec<ObjRef> {
        raw.relations
            .iter()
            .filter(|(k, _)| *k == kind)
            .flat_map(|(_, targets)| targets.iter().cloned())
            .collect()
    };
    let mut label = raw.name.clone();
    if label.is_empty() {
        label = related(2) // labelled-by
            .iter()
            .filter_map(|o| names.get(&key_of(o)).copied())
            .filter(|n| !n.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if !label.is_empty() {
            node.name_source = Some(NameSource::LabelledBy);
        }
    }
    // ATK's name (GTK, Firefox); Chromium's is the markup's own.
    node.placeholder = ["placeholder-text", "placeholder"]
        .iter()
        .find_map(|name| raw.attributes.get(*name).filter(|p| !p.is_empty()))
        .cloned();
    let text_value = raw.text.as_ref().map(|t| t.text.clone());
    if label.is_empty()
        && !roles::has_text_value(raw.role)
        && !raw.ifaces.has(Ifaces::EDITABLE_TEXT)
    {
        label = text_value.clone().unwrap_or_default();
    }
    node.label = Some(label).filter(|l| !l.is_empty());
    let number = raw.value.and_then(|v| v.now).map(format_number);
    let spreadsheet = roles::is_spreadsheet_cell(raw.role, raw.ifaces.has(Ifaces::VALUE));
    // What the screen shows: an element whose text is empty has no value,
    // whatever number it answers (Calc's Value is 0 for an empty cell and
    // a text cell alike: a cell's value is its text).
    let shown = |text: Option<String>| text.filter(|t| !t.is_empty());
    node.value = if spreadsheet {
        shown(text_value.clone())
    } else if roles::has_text_value(raw.role) || raw.ifaces.has(Ifaces::EDITABLE_TEXT) {
        match text_value {
            Some(text) => shown(Some(text)),
            None => number,
        }
    } else {
        number
    };
    node.description = Some(raw.description.clone()).filter(|d| !d.is_empty());
    node.bounds = raw.extents.and_then(|(x, y, w, h)| {
        let (dx, dy) = if toolkit.window_relative_extents() {
            (0, 0)
        } else {
            frame.origin
        };
        // A window being unmapped can answer a place near i32::MIN: where
        // its elements are on it is then not known. (In floating point, as
        // no difference of two places may overflow.)
        let placed = dx > NOWHERE && dy > NOWHERE;
        (placed && is_box((x, y, w, h))).then(|| {
            // In device pixels, as the X server counts them ([`crate::scale`]).
            let k = frame.scale;
            Bounds::new(
                (f64::from(x) - f64::from(dx)) * k,
                (f64::from(y) - f64::from(dy)) * k,
                f64::from(w) * k,
                f64::from(h) * k,
            )
        })
    });
    node.states = protocol_states(raw.states, raw.role, toolkit.sets_showing());
    // GTK 4 keeps VISIBLE on widgets inside a hidden parent (a closed revealer);
    // one with no area on screen is not shown.
    if !toolkit.sets_showing()
        && node.bounds.is_none()
        && parent.is_some()
        && !node.states.contains(&State::Offscreen)
    {
        node.states.push(State::Offscreen);
    }
    node.actions = offered_actions(element);
    // An empty cell's 0 is not a number it shows.
    let empty_cell = spreadsheet && node.value.is_none();
    if let Some(v) = raw.value.filter(|_| !empty_cell) {
        node.min = v.min;
        node.max = v.max;
        node.now = v.now;
        node.step = v.step;
    }
    if let Some(text) = &raw.text {
        if raw.ifaces.has(Ifaces::EDITABLE_TEXT) || raw.states.has(st::SELECTABLE_TEXT) {
            let (s, e) = text.selection.unwrap_or((text.caret, text.caret));
            node.selection = Some([s.max(0) as u32, e.max(0) as u32]);
        }
    }
    let attr = |name: &str| raw.attributes.get(name).and_then(|v| v.parse::<i64>().ok());
    node.level = attr("level");
    node.pos_in_set = attr("posinset");
    node.set_size = attr("setsize");
    if let Some((rows, cols)) = raw.table {
        node.row_count = Some(i64::from(rows));
        node.col_count = Some(i64::from(cols));
    }
    if let Some((row, col, row_span, col_span)) = raw.cell {
        node.row_index = Some(i64::from(row) + 1);
        node.col_index = Some(i64::from(col) + 1);
        node.row_span = (row_span > 1).then_some(i64::from(row_span));
        node.col_span = (col_span > 1).then_some(i64::from(col_span));
    }
    if raw.truncated {
        node.truncated = true;
        node.child_count = Some(i64::from(raw.child_count)).filter(|n| *n >= 0);
    }
    node.key = Some(raw.key())
        .filter(|k| !k.is_empty())
        .map(ElementKey::from);
    node.classes = raw
        .attributes
        .get("class")
        .map(|classes| classes.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    node.tag = raw.attributes.get("tag").filter(|t| !t.is_empty()).cloned();
    node.controls = related(3)
        .iter()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .collect();
    node.described_by = related(18)
        .iter()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .collect();
    node.error_message = related(21)
        .iter()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .collect();
    node
}

/// AT-SPI's object replacement character: where a text holds an embedded
/// object (Gecko writes one for every child of a paragraph, a link, a field).
const OBJECT_MARK: char = '\u{FFFC}';

/// The elements with each object replacement character of a name or text
/// replaced by the text of the embedded object it stands for (the element's
/// children, in order, as Gecko's hypertext counts them), or dropped where
/// that object shows no text; `None` when no element has one.
fn with_embedded_text(elements: &[Element]) -> Option<Vec<Element>> {
    let marked = |e: &Element| {
        e.raw.name.contains(OBJECT_MARK)
            || e.raw
                .text
                .as_ref()
                .is_some_and(|t| t.text.contains(OBJECT_MARK))
    };
    if !elements.iter().any(marked) {
        return None;
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); elements.len()];
    for (index, element) in elements.iter().enumerate() {
        if let Some(parent) = element.parent {
            children[parent].push(index);
        }
    }
    // Children come after their parent: the deepest are replaced first.
    let mut out = elements.to_vec();
    for index in (0..out.len()).rev() {
        if !marked(&out[index]) {
            continue;
        }
        let texts: Vec<String> = children[index]
            .iter()
            .map(|&child| shown_text(&out, &children, child))
            .collect();
        let raw = &mut out[index].raw;
        raw.name = replace_marks(&raw.name, &texts);
        if let Some(text) = raw.text.as_mut() {
            text.text = replace_marks(&text.text, &texts);
        }
    }
    Some(out)
}

/// What the embedded object `index` shows as text: its own text (an entry's,
/// a link's, even when empty), a combo box's chosen item, the caption of a
/// button (WebKit's have no text), else nothing. Not the name of a control
/// that shows none: a check box or an entry is named after the label that
/// holds it, and that name in the label's text reads the label twice ("Gift
/// wrap Gift wrap" where the screen shows "Gift wrap").
fn shown_text(elements: &[Element], children: &[Vec<usize>], index: usize) -> String {
    let raw = &elements[index].raw;
    if let Some(text) = raw.text.as_ref().filter(|t| !t.text.is_empty()) {
        return text.text.replace(OBJECT_MARK, "");
    }
    match raw.role {
        COMBO_BOX => chosen_item(elements, children, index).unwrap_or_default(),
        role if SHOWS_ITS_NAME.contains(&role) => raw.name.replace(OBJECT_MARK, ""),
        _ => String::new(),
    }
}

const COMBO_BOX: u32 = 11;

/// Roles whose name is the caption drawn on them: label, page tab, push
/// button, toggle button, heading, link, static, push button with a menu.
const SHOWS_ITS_NAME: [u32; 8] = [29, 37, 43, 62, 83, 88, 116, 129];

/// The name of the selected item inside the combo box `index` (Gecko keeps
/// a `<select>`'s options in a menu under it, the chosen one SELECTED).
fn chosen_item(elements: &[Element], children: &[Vec<usize>], index: usize) -> Option<String> {
    let mut stack: Vec<usize> = children[index].iter().rev().copied().collect();
    while let Some(at) = stack.pop() {
        let raw = &elements[at].raw;
        if raw.states.has(st::SELECTED) && !raw.name.is_empty() {
            return Some(raw.name.clone());
        }
        stack.extend(children[at].iter().rev());
    }
    None
}

/// `text` with its n-th object mark replaced by `objects[n]` (dropped past the end).
fn replace_marks(text: &str, objects: &[String]) -> String {
    let mut next = objects.iter();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == OBJECT_MARK {
            if let Some(object) = next.next() {
                out.push_str(object);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// GTK 4.8 names an element without a name after its widget class
/// (`GtkButton`), and runs a button's label into its name twice (`7 7`):
/// the label child's text is the better label in both cases.
fn gtk4_label(role: u32, name: &str, child_label: Option<&str>) -> Option<Option<String>> {
    // GTK 4.8 names every notebook tab "Tab"; its label child reads Info or Source.
    let class_name = is_class_name(name) || (role == 37 && name == "Tab"); // page tab
    let doubled = child_label.is_some_and(|c| !c.is_empty() && name == format!("{c} {c}"));
    if !(class_name || doubled) {
        return None;
    }
    Some(child_label.filter(|c| !c.is_empty()).map(str::to_string))
}

/// Whether `name` is a GTK or libadwaita widget class name rather than words.
fn is_class_name(name: &str) -> bool {
    ["Gtk", "Adw", "Gsk"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_uppercase())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    })
}

/// Marks offscreen every element inside a hidden menu: SHOWING means the
/// element and all its ancestors are shown, but Gecko and WebKit keep it on
/// the items of a closed menu (a `<select>`'s options in Epiphany, a menu
/// bar's menus in Thunderbird and Firefox) while the menu itself is hidden,
/// so they read as controls a person could use. Only menus hide what they
/// hold here: other containers may lack SHOWING while what they hold shows
/// (WebKit's root scroll pane, GTK 3's socket for an embedded page).
fn hide_inside_hidden(elements: &[Element], nodes: &mut [Node]) {
    let mut hides = vec![false; nodes.len()];
    for index in 1..nodes.len() {
        let offscreen = nodes[index].states.contains(&State::Offscreen);
        let in_hidden_menu = elements[index].parent.is_some_and(|p| p > 0 && hides[p]);
        if in_hidden_menu && !offscreen {
            nodes[index].states.push(State::Offscreen);
        }
        let menu = matches!(elements[index].raw.role, 33 | 41); // menu, popup menu
        hides[index] = in_hidden_menu || (menu && offscreen);
    }
}

/// Marks offscreen each element whose centre lies under a column header of
/// the table that holds it: a GTK 3 tree view scrolled down keeps its header
/// in place and draws its first rows beneath it, yet answers those rows'
/// boxes and SHOWING as if they were seen (gnome-system-monitor), and a click
/// at their centre would land on the header and sort the view. A cell inside
/// a cell (GTK 3's icon beside a name) is held by the same table.
fn hide_under_headers(elements: &[Element], nodes: &mut [Node]) {
    let mut headers: HashMap<usize, Vec<Bounds>> = HashMap::new();
    for (index, node) in nodes.iter().enumerate() {
        if let (true, Some(parent), Some(bounds)) = (
            node.role == Role::ColumnHeader,
            elements[index].parent,
            node.bounds,
        ) {
            headers.entry(parent).or_default().push(bounds);
        }
    }
    if headers.is_empty() {
        return;
    }
    // Parents come before their children in a read.
    let mut table_of: Vec<Option<usize>> = vec![None; nodes.len()];
    for (index, element) in elements.iter().enumerate() {
        table_of[index] = element.parent.and_then(|p| {
            if headers.contains_key(&p) {
                Some(p)
            } else {
                table_of.get(p).copied().flatten()
            }
        });
    }
    for (index, node) in nodes.iter_mut().enumerate() {
        let Some(boxes) = table_of[index].and_then(|t| headers.get(&t)) else {
            continue;
        };
        let Some(bounds) = node.bounds.filter(|_| node.role != Role::ColumnHeader) else {
            continue;
        };
        let (x, y) = bounds.center();
        let covered = boxes
            .iter()
            .any(|h| x >= h.x && x < h.x + h.width && y >= h.y && y < h.y + h.height);
        if covered && !node.states.contains(&State::Offscreen) {
            node.states.push(State::Offscreen);
        }
    }
}

/// Whether the element is an item of a combo box's popup list whose only
/// action is Qt's `Toggle`: that selects the item (it reads `selected`)
/// without choosing it, and the popup stays open; a click chooses it.
fn only_selects_in_popup(elements: &[Element], element: &Element) -> bool {
    let up = |e: &Element| e.parent.map(|p| &elements[p]);
    let in_combo = up(element)
        .and_then(up)
        .is_some_and(|combo| combo.raw.role == 11); // combo box
    in_combo
        && element.raw.actions.len() == 1
        && element.raw.actions[0].eq_ignore_ascii_case("toggle")
}

/// The actions an element really offers, from its interfaces, states and action names.
pub fn offered_actions(element: &Element) -> Vec<Action> {
    let raw = &element.raw;
    let mut out = Vec::new();
    if press_action(&raw.actions).is_some() {
        out.push(Action::Press);
    }
    if raw.states.has(st::FOCUSABLE) {
        out.push(Action::Focus);
    }
    let editable = raw.ifaces.has(Ifaces::EDITABLE_TEXT) && raw.states.has(st::EDITABLE);
    let range = is_range(raw);
    if editable || range {
        out.push(Action::SetValue);
    }
    if editable {
        out.push(Action::InsertText);
    }
    if raw.ifaces.has(Ifaces::TEXT) && (editable || raw.states.has(st::SELECTABLE_TEXT)) {
        out.push(Action::SelectText);
    }
    if range {
        out.push(Action::Increment);
        out.push(Action::Decrement);
    }
    if opens_popup(raw) {
        out.push(Action::Expand);
    } else if raw.states.has(st::EXPANDABLE) && expand_action(&raw.actions).is_some() {
        out.push(if raw.states.has(st::EXPANDED) {
            Action::Collapse
        } else {
            Action::Expand
        });
    }
    if element.in_scroller && raw.ifaces.has(Ifaces::COMPONENT) {
        out.push(Action::ScrollIntoView);
    }
    out
}

/// Whether the element is a range a person can move (not a progress bar), with room to move.
pub fn is_range(raw: &RawNode) -> bool {
    let adjustable = roles::is_adjustable_range(raw.role);
    match raw.value {
        Some(v) => {
            adjustable
                && raw.ifaces.has(Ifaces::VALUE)
                && matches!((v.min, v.max), (Some(lo), Some(hi)) if hi > lo)
        }
        None => false,
    }
}

/// The index of the action that presses the element, if it has one.
pub fn press_action(actions: &[String]) -> Option<usize> {
    const PRESS: [&str; 7] = [
        "click", "press", "activate", "toggle", "jump", "open", "select",
    ];
    PRESS
        .iter()
        .find_map(|want| actions.iter().position(|a| a.eq_ignore_ascii_case(want)))
}

/// Whether the element is a closed combo box that opens its popup by an
/// action of its own: Qt's `ShowMenu` (Qt sets no EXPANDABLE state, and a
/// click at an editable combo's centre lands in its text field).
pub fn opens_popup(raw: &RawNode) -> bool {
    raw.role == 11 // combo box
        && !raw.states.has(st::EXPANDED)
        && raw.actions.iter().any(|a| a.eq_ignore_ascii_case(SHOW_MENU))
}

const SHOW_MENU: &str = "ShowMenu";

/// The index of the action that expands or collapses the element, if it has one.
pub fn expand_action(actions: &[String]) -> Option<usize> {
    const EXPAND: [&str; 7] = [
        "expand or contract",
        "expand or collapse",
        "expand",
        "collapse",
        "toggle",
        "activate",
        SHOW_MENU,
    ];
    EXPAND
        .iter()
        .find_map(|want| actions.iter().position(|a| a.eq_ignore_ascii_case(want)))
}

pub fn id_of(raw: &RawNode) -> ElementId {
    raw.obj
        .as_ref()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .unwrap_or_default()
}

fn key_of(obj: &ObjRef) -> String {
    format!("{}{}", obj.0, obj.1.as_str())
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_under_their_tables_column_header_are_offscreen() {
        let element = |parent| Element {
            raw: RawNode::default(),
            parent,
            in_scroller: false,
        };
        let node = |role, y| Node {
            role,
            bounds: Some(Bounds::new(0.0, y, 100.0, 22.0)),
            ..Node::default()
        };
        // A table, its header at y 0..24, a row scrolled beneath it, a row
        // half under it, a row below it; and a cell of another table at the
        // header's place.
        let elements = [
            None,
            Some(0),
            Some(0),
            Some(0),
            Some(0),
            Some(6),
            None,
            Some(2),
        ]
        .map(element)
        .to_vec();
        let mut nodes = vec![
            node(Role::Table, 0.0),
            Node {
                bounds: Some(Bounds::new(0.0, 0.0, 100.0, 24.0)),
                ..node(Role::ColumnHeader, 0.0)
            },
            node(Role::Cell, 1.0),
            node(Role::Cell, 14.0),
            node(Role::Cell, 24.0),
            node(Role::Cell, 1.0),
        ];
        nodes.push(node(Role::Table, 0.0));
        nodes.push(node(Role::Cell, 1.0)); // an icon inside the covered cell
        hide_under_headers(&elements, &mut nodes);
        let offscreen: Vec<bool> = nodes
            .iter()
            .map(|n| n.states.contains(&State::Offscreen))
            .collect();
        assert_eq!(
            offscreen,
            [false, false, true, false, false, false, false, true],
            "only the cells whose centre the header covers are offscreen"
        );
    }

    #[test]
    fn press_and_expand_actions_are_found_by_name() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(press_action(&names(&["click"])), Some(0));
        assert_eq!(press_action(&names(&["edit", "activate"])), Some(1));
        assert_eq!(press_action(&names(&["edit"])), None);
        assert_eq!(
            expand_action(&names(&["activate", "expand or contract"])),
            Some(1)
        );
        assert_eq!(format_number(42.0), "42");
        assert_eq!(gtk4_label(32, "7 7", Some("7")), Some(Some("7".into())));
        assert_eq!(
            gtk4_label(32, "GtkButton", Some("π")),
            Some(Some("π".into()))
        );
        assert_eq!(gtk4_label(32, "AdwGizmo", None), Some(None));
        assert_eq!(gtk4_label(32, "Undo", Some("Undo")), None);
        assert_eq!(
            gtk4_label(37, "Tab", Some("Info")),
            Some(Some("Info".into()))
        );
        assert_eq!(
            gtk4_label(32, "Tab", Some("Info")),
            None,
            "a button named Tab"
        );
        assert!(!is_class_name("Gtkfoo") && !is_class_name("Gtk Button"));
        assert_eq!(format_number(0.5), "0.5");
    }

    #[test]
    fn object_marks_take_what_the_embedded_object_shows_or_go() {
        let element = |role, name: &str, text: Option<&str>, parent| Element {
            raw: RawNode {
                role,
                name: name.into(),
                text: text.map(|t| crate::fetch::TextInfo {
                    text: t.into(),
                    ..Default::default()
                }),
                ..RawNode::default()
            },
            parent,
            in_scroller: false,
        };
        let mut elements = vec![
            element(73, "", Some("Read \u{FFFC} and \u{FFFC}\u{FFFC}"), None),
            element(88, "the terms", Some("the terms"), Some(0)), // a link
            element(43, "Send", None, Some(0)),                   // a WebKit button: no text
            element(73, "", Some("\u{FFFC}"), Some(0)),
            element(27, "A logo", None, Some(3)), // an image: no text
            element(29, "Gift wrap", Some("\u{FFFC} Gift wrap"), None),
            element(7, "Gift wrap", Some(""), Some(5)), // a check box, named by its label
            element(29, "Name Name", Some("Name \u{FFFC}"), None),
            element(79, "Name", Some(""), Some(7)), // an empty entry
            element(29, "Size Small", Some("Size \u{FFFC}"), None),
            element(COMBO_BOX, "Size", None, Some(9)),
            element(33, "", None, Some(10)), // its menu of options
            element(35, "Small", None, Some(11)),
            element(35, "Large", None, Some(11)),
        ];
        elements[13].raw.states = crate::states::StateSet(1 << st::SELECTED);
        let replaced = with_embedded_text(&elements).expect("marks replaced");
        let text = |at: usize| replaced[at].raw.text.as_ref().unwrap().text.clone();
        assert_eq!(text(0), "Read the terms and Send");
        assert_eq!(text(3), "");
        assert_eq!(text(5), " Gift wrap");
        assert_eq!(text(7), "Name ");
        assert_eq!(text(9), "Size Large");
        assert!(with_embedded_text(&elements[1..2]).is_none());
    }

    #[test]
    fn an_empty_text_is_no_value_and_an_empty_cells_zero_no_number() {
        let node = |role, ifaces, text: &str| {
            let element = Element {
                raw: RawNode {
                    role,
                    ifaces,
                    text: Some(crate::fetch::TextInfo {
                        text: text.into(),
                        ..Default::default()
                    }),
                    value: Some(crate::fetch::ValueInfo {
                        now: Some(0.0),
                        ..Default::default()
                    }),
                    ..RawNode::default()
                },
                parent: None,
                in_scroller: false,
            };
            let frame = Frame::unscaled((0, 0));
            to_node(
                &element,
                ElementId(1),
                None,
                Toolkit::Other,
                frame,
                &HashMap::new(),
            )
        };
        let cell_ifaces = Ifaces::from_names(&["org.a11y.atspi.Value", "org.a11y.atspi.Text"]);
        let empty_cell = node(56, cell_ifaces, ""); // table cell
        assert_eq!((empty_cell.value, empty_cell.now), (None, None));
        let zero = node(56, cell_ifaces, "0");
        assert_eq!((zero.value.as_deref(), zero.now), (Some("0"), Some(0.0)));
        let field = node(61, Ifaces::from_names(&["org.a11y.atspi.EditableText"]), "");
        assert_eq!(field.value, None, "an empty field");
        let typed = node(
            61,
            Ifaces::from_names(&["org.a11y.atspi.EditableText"]),
            "Ada",
        );
        assert_eq!(typed.value.as_deref(), Some("Ada"));
    }

    #[test]
    fn bounds_count_from_the_window_and_a_window_with_no_place_gives_none() {
        let element = Element {
            raw: RawNode {
                extents: Some((i32::MAX - 5, 150, 20, 10)),
                ..RawNode::default()
            },
            parent: None,
            in_scroller: false,
        };
        let bounds = |origin| {
            to_node(
                &element,
                ElementId(1),
                None,
                Toolkit::Other,
                Frame::unscaled(origin),
                &HashMap::new(),
            )
            .bounds
        };
        assert_eq!(
            bounds((-10, 100)),
            Some(Bounds::new(f64::from(i32::MAX) + 5.0, 50.0, 20.0, 10.0)),
            "no overflow"
        );
        // What GTK 3 answers for a window being unmapped.
        assert_eq!(bounds((i32::MIN, i32::MIN)), None);
    }

    #[test]
    fn the_key_is_the_accessible_id_else_the_markups_id_with_classes_and_placeholder() {
        let node = |accessible_id: &str, attributes: &[(&str, &str)]| {
            let element = Element {
                raw: RawNode {
                    role: 79, // entry
                    name: "Postcode".into(),
                    accessible_id: accessible_id.into(),
                    attributes: attributes
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                    ..RawNode::default()
                },
                parent: None,
                in_scroller: false,
            };
            to_node(
                &element,
                ElementId(1),
                None,
                Toolkit::Other,
                Frame::unscaled((0, 0)),
                &HashMap::new(),
            )
        };
        // Firefox: no accessible id; the page's attributes.
        let firefox = node(
            "",
            &[
                ("id", "zip"),
                ("class", " field  narrow "),
                ("tag", "input"),
                ("placeholder-text", "ZIP"),
            ],
        );
        assert_eq!(firefox.key, Some(ElementKey::from("zip")));
        assert_eq!(firefox.classes, ["field", "narrow"]);
        assert_eq!(firefox.tag.as_deref(), Some("input"));
        assert_eq!(firefox.label.as_deref(), Some("Postcode"));
        assert_eq!(firefox.placeholder.as_deref(), Some("ZIP"));
        // Chromium names the placeholder as the markup does.
        let chromium = node("", &[("id", "zip"), ("placeholder", "ZIP")]);
        assert_eq!(chromium.placeholder.as_deref(), Some("ZIP"));
        // A toolkit's accessible id comes first.
        let both = node("postcode-field", &[("id", "zip")]);
        assert_eq!(both.key, Some(ElementKey::from("postcode-field")));
        let none = node("", &[("class", ""), ("tag", "")]);
        assert_eq!((none.key, none.classes, none.tag), (None, vec![], None));
    }
}
