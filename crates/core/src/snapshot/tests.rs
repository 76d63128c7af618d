use super::*;
use crate::protocol::{Action, ElementKey, Node, State};
use crate::ErrorCode;

fn node(id: u64, parent: Option<u64>, role: Role, label: &str) -> Node {
    Node {
        id: ElementId(id),
        parent: parent.map(ElementId),
        role,
        label: (!label.is_empty()).then(|| label.to_string()),
        ..Node::default()
    }
}

/// The counter window: a text, a button, a field, and a list of three items in a group.
fn counter(count: u32, name: &str) -> Tree {
    let mut button = node(20, None, Role::Button, "Add");
    button.key = Some(ElementKey::from("add"));
    button.states = vec![State::Focusable];
    button.actions = vec![Action::Press, Action::Focus];
    let mut field = node(30, None, Role::TextField, "Name");
    field.key = Some(ElementKey::from("name"));
    field.value = (!name.is_empty()).then(|| name.to_string());
    field.actions = vec![Action::Focus, Action::SetValue];
    let mut nodes = vec![
        node(10, None, Role::Text, &format!("Count: {count}")),
        button,
        field,
        node(40, None, Role::Group, "Fruit"),
        node(41, Some(40), Role::List, ""),
    ];
    for (i, fruit) in ["Apple", "Pear", "Plum"].iter().enumerate() {
        let mut item = node(50 + i as u64, Some(41), Role::ListItem, fruit);
        item.states = vec![State::Selectable];
        nodes.push(item);
    }
    Tree {
        window: 1,
        focus: Some(ElementId(30)),
        nodes,
        ..Tree::default()
    }
}

#[test]
fn lines_leave_out_what_is_empty() {
    let mut refs = RefMap::new();
    let snap = Snapshot::take(&counter(0, "Ada"), &mut refs);
    let text = snap.render(&View::full()).unwrap();
    assert_eq!(
        text,
        "@e1 [text] \"Count: 0\"\n\
         @e2 [button] \"Add\" key=add\n\
         @e3 [textField] \"Name\" value=\"Ada\" key=name focused\n\
         @e4 [group] \"Fruit\"\n\
         \x20 @e5 [list]\n\
         \x20   @e6 [listItem] \"Apple\"\n\
         \x20   @e7 [listItem] \"Pear\"\n\
         \x20   @e8 [listItem] \"Plum\"\n"
    );
    let list = snap.element(Ref(5)).unwrap();
    assert_eq!(
        (list.depth, list.children, list.parent),
        (1, 3, Some(Ref(4)))
    );
}

#[test]
fn the_interactive_view_keeps_controls_and_drops_hidden_ones() {
    let mut tree = counter(0, "");
    tree.nodes[7].states.push(State::Offscreen); // Plum scrolled away
    let snap = Snapshot::take(&tree, &mut RefMap::new());
    assert_eq!(
        snap.render(&View::interactive()).unwrap(),
        "@e2 [button] \"Add\" key=add\n\
         @e3 [textField] \"Name\" key=name focused\n\
         @e6 [listItem] \"Apple\"\n\
         @e7 [listItem] \"Pear\"\n"
    );
}

#[test]
fn children_of_a_hidden_element_are_hidden_too() {
    let mut tree = counter(0, "");
    tree.nodes[3].states.push(State::Offscreen); // the Fruit group
    let snap = Snapshot::take(&tree, &mut RefMap::new());
    assert!(snap.element(Ref(6)).unwrap().offscreen);
    assert!(!snap.render(&View::interactive()).unwrap().contains("Apple"));
}

#[test]
fn a_skeleton_counts_what_it_leaves_out_and_a_ref_drills_down() {
    let snap = Snapshot::take(&counter(0, ""), &mut RefMap::new());
    let skeleton = View {
        max_depth: Some(0),
        ..View::full()
    };
    assert_eq!(
        snap.render(&skeleton).unwrap(),
        "@e1 [text] \"Count: 0\"\n\
         @e2 [button] \"Add\" key=add\n\
         @e3 [textField] \"Name\" key=name focused\n\
         @e4 [group] \"Fruit\" (+4)\n"
    );
    // Controls only: the group is shown at the limit because controls are inside it.
    let controls = View {
        max_depth: Some(0),
        ..View::interactive()
    };
    assert_eq!(
        snap.render(&controls).unwrap(),
        "@e2 [button] \"Add\" key=add\n\
         @e3 [textField] \"Name\" key=name focused\n\
         @e4 [group] \"Fruit\" (+3)\n"
    );
    let drill = View {
        root: Some(Ref(4)),
        max_depth: Some(1),
        ..View::full()
    };
    assert_eq!(
        snap.render(&drill).unwrap(),
        "@e4 [group] \"Fruit\"\n  @e5 [list] (+3)\n"
    );
    let gone = View {
        root: Some(Ref(99)),
        ..View::full()
    };
    assert_eq!(snap.render(&gone).unwrap_err().code, ErrorCode::StaleRef);
}

#[test]
fn a_diff_shows_what_changed_with_context() {
    let mut refs = RefMap::new();
    let before = Snapshot::take(&counter(0, ""), &mut refs);
    let after = Snapshot::take(&counter(1, ""), &mut refs);
    let d = diff(&before, &after, 1);
    assert_eq!(
        d.render(),
        "- @e1 [text] \"Count: 0\"\n\
         + @e1 [text] \"Count: 1\"\n\
         = @e2 [button] \"Add\" key=add\n"
    );
    assert_eq!((d.added, d.removed, d.changed), (0, 0, 1));
    assert!(diff(&after, &after, 1).is_empty());
    assert_eq!(diff(&after, &after, 1).render(), "no changes\n");
}

#[test]
fn a_diff_shows_elements_that_came_and_went_where_they_were() {
    let mut refs = RefMap::new();
    let before = Snapshot::take(&counter(0, ""), &mut refs);
    let mut tree = counter(0, "");
    tree.nodes.remove(6); // Pear goes
    let mut kiwi = node(60, Some(41), Role::ListItem, "Kiwi");
    kiwi.states = vec![State::Selectable];
    tree.nodes.push(kiwi);
    let after = Snapshot::take(&tree, &mut refs);
    let d = diff(&before, &after, 1);
    assert_eq!(
        d.render(),
        "= @e6 [listItem] \"Apple\"\n\
         - @e7 [listItem] \"Pear\"\n\
         = @e8 [listItem] \"Plum\"\n\
         + @e9 [listItem] \"Kiwi\"\n"
    );
    assert_eq!((d.added, d.removed, d.changed), (1, 1, 0));
    assert_eq!(refs.resolve(Ref(7)).unwrap_err().code, ErrorCode::StaleRef);
}

#[test]
fn states_read_as_words_and_the_focus_moves() {
    let mut refs = RefMap::new();
    let mut tree = counter(0, "");
    let mut check = node(70, None, Role::CheckBox, "Bold");
    check.states = vec![State::Focusable, State::Checked, State::Disabled];
    let mut expander = node(71, None, Role::Disclosure, "More");
    expander.states = vec![State::Expandable];
    tree.nodes.push(check);
    tree.nodes.push(expander);
    tree.focus = Some(ElementId(20));
    let snap = Snapshot::take(&tree, &mut refs);
    let text = snap.render(&View::interactive()).unwrap();
    assert!(
        text.contains("@e2 [button] \"Add\" key=add focused\n"),
        "{text}"
    );
    assert!(
        text.contains("@e9 [checkBox] \"Bold\" checked disabled\n"),
        "{text}"
    );
    assert!(
        text.contains("@e10 [disclosure] \"More\" collapsed\n"),
        "{text}"
    );
}

#[test]
fn a_snapshot_survives_a_trip_through_json() {
    let mut refs = RefMap::new();
    let snap = Snapshot::take(&counter(2, "Ada"), &mut refs);
    let json = serde_json::to_value(&snap).unwrap();
    assert_eq!(json["elements"][1]["ref"], "@e2");
    assert_eq!(json["elements"][1]["key"], "add");
    let back: Snapshot = serde_json::from_value(json).unwrap();
    assert_eq!(back, snap);
}

#[test]
fn a_node_reads_as_its_line_with_or_without_a_ref() {
    let tree = counter(3, "Ada");
    assert_eq!(
        node_line(Some(Ref(2)), &tree.nodes[1]),
        "@e2 [button] \"Add\" key=add"
    );
    assert_eq!(
        node_line(None, &tree.nodes[2]),
        "[textField] \"Name\" value=\"Ada\" key=name"
    );
}

#[test]
fn over_the_demo_driver_refs_last_and_a_press_shows_as_a_diff() {
    use crate::protocol::{ActParams, TreeParams};
    use crate::{Driver, MemoryDriver};
    let driver = MemoryDriver::new();
    let mut refs = RefMap::new();
    let read = |driver: &MemoryDriver| driver.tree(&TreeParams::default()).unwrap();
    let before = Snapshot::take(&read(&driver), &mut refs);
    let add = before
        .elements
        .iter()
        .find(|e| e.key.as_deref() == Some("add"))
        .unwrap()
        .clone();
    let target = refs.resolve(add.r).unwrap().clone();
    driver
        .act(&ActParams::on(target.id, Action::Press).in_window(Some(target.window)))
        .unwrap();
    let after = Snapshot::take(&read(&driver), &mut refs);
    assert_eq!(
        after.element(add.r).unwrap().id,
        add.id,
        "the button kept its ref"
    );
    let changes = diff(&before, &after, 1);
    assert_eq!(changes.changed, 1);
    let text = changes.render();
    assert!(
        text.contains("+ @e1 [text] \"Count: 1\" key=count\n"),
        "{text}"
    );
    // An element the app removes makes its ref stale.
    driver.edit(|ui| {
        ui.window_mut(None)
            .unwrap()
            .nodes
            .retain(|n| n.key.as_ref().map(|k| k.to_string()).as_deref() != Some("name"))
    });
    let name = after
        .elements
        .iter()
        .find(|e| e.key.as_deref() == Some("name"))
        .unwrap()
        .r;
    let gone = Snapshot::take(&read(&driver), &mut refs);
    assert!(gone.element(name).is_none());
    assert_eq!(refs.resolve(name).unwrap_err().code, ErrorCode::StaleRef);
    assert!(diff(&after, &gone, 0)
        .render()
        .contains("- @e3 [textField] \"Name\""));
}

/// A GTK 4 window as gnome-text-editor shows it: the focused editor and an
/// open popover menu each sit below an element that reads as hidden.
fn editor_with_open_menu() -> Tree {
    let mut hidden_page = node(2, Some(1), Role::Group, "");
    hidden_page.states = vec![State::Offscreen];
    let mut editor = node(3, Some(2), Role::TextField, "Editor");
    editor.actions = vec![Action::Focus];
    let menu_button = node(4, Some(1), Role::Button, "Menu");
    let popover = node(5, Some(4), Role::Menu, "");
    let mut stack_page = node(6, Some(5), Role::Group, "");
    stack_page.states = vec![State::Offscreen];
    let new_window = node(7, Some(6), Role::MenuItem, "New Window");
    let mut hidden_item = node(8, Some(6), Role::MenuItem, "Not now");
    hidden_item.states = vec![State::Offscreen];
    // A menu that is itself hidden keeps its items hidden.
    let mut closed = node(9, Some(1), Role::Menu, "Closed");
    closed.states = vec![State::Offscreen];
    let closed_item = node(10, Some(9), Role::MenuItem, "Inside closed");
    Tree {
        window: 1,
        focus: Some(ElementId(3)),
        nodes: vec![
            node(1, None, Role::Group, "Window"),
            hidden_page,
            editor,
            menu_button,
            popover,
            stack_page,
            new_window,
            hidden_item,
            closed,
            closed_item,
        ],
        ..Tree::default()
    }
}

#[test]
fn controls_view_keeps_the_focused_element_and_open_menu_items() {
    let mut refs = RefMap::new();
    let snap = Snapshot::take(&editor_with_open_menu(), &mut refs);
    let text = snap.render(&View::interactive()).unwrap();
    assert_eq!(
        text,
        "@e3 [textField] \"Editor\" focused\n\
         @e4 [button] \"Menu\"\n\
         @e7 [menuItem] \"New Window\"\n"
    );
}

/// gtk4-demo's Clipboard demo, as GTK 4 shows it: a field on screen inside a
/// group flagged offscreen, a flagged group with nothing shown inside, and a
/// list whose last row is scrolled out of its box without any flag.
fn clipboard_demo() -> Tree {
    let at = |x, y, w, h| Some(crate::protocol::Bounds::new(x, y, w, h));
    let mut window = node(1, None, Role::Group, "Clipboard");
    window.bounds = at(0.0, 0.0, 352.0, 184.0);
    let mut flagged = node(2, Some(1), Role::Group, "");
    flagged.states = vec![State::Offscreen];
    let mut field = node(3, Some(2), Role::TextField, "");
    field.value = Some("Copy this!".into());
    field.bounds = at(102.0, 76.0, 150.0, 32.0);
    let mut gone = node(4, Some(1), Role::Group, "");
    gone.states = vec![State::Offscreen];
    let mut swatch = node(5, Some(4), Role::Button, "Swatch");
    swatch.actions = vec![Action::Press];
    let mut list = node(6, Some(1), Role::List, "Demo list");
    list.bounds = at(0.0, 0.0, 200.0, 100.0);
    let mut first = node(7, Some(6), Role::ListItem, "Clipboard");
    first.bounds = at(0.0, 0.0, 200.0, 36.0);
    let mut below = node(8, Some(6), Role::ListItem, "Fishbowl");
    below.bounds = at(0.0, 120.0, 200.0, 36.0);
    let mut copy = node(9, Some(1), Role::Button, "Copy");
    copy.actions = vec![Action::Press];
    copy.bounds = at(290.0, 80.0, 33.0, 24.0);
    Tree {
        window: 2,
        nodes: vec![
            window, flagged, field, gone, swatch, list, first, below, copy,
        ],
        ..Tree::default()
    }
}

#[test]
fn visibility_follows_the_screen_not_the_toolkits_flags() {
    let snap = Snapshot::take(&clipboard_demo(), &mut RefMap::new());
    assert_eq!(
        snap.render(&View::interactive()).unwrap(),
        "@e3 [textField] value=\"Copy this!\"\n\
         @e7 [listItem] \"Clipboard\"\n\
         @e9 [button] \"Copy\"\n"
    );
    // The whole view leaves hidden elements out and counts them.
    assert_eq!(
        snap.render(&View::full()).unwrap(),
        "@e1 [group] \"Clipboard\" (+2)\n\
         \x20 @e2 [group]\n\
         \x20   @e3 [textField] value=\"Copy this!\"\n\
         \x20 @e6 [list] \"Demo list\" (+1)\n\
         \x20   @e7 [listItem] \"Clipboard\"\n\
         \x20 @e9 [button] \"Copy\"\n"
    );
    let everything = View {
        hidden: true,
        ..View::full()
    };
    assert!(snap
        .render(&everything)
        .unwrap()
        .contains("@e8 [listItem] \"Fishbowl\" offscreen"));
}

#[test]
fn a_brief_diff_folds_what_came_inside_what_came_and_skips_hidden_churn() {
    let mut refs = RefMap::new();
    let before = clipboard_demo();
    let old = Snapshot::take(&before, &mut refs);
    let mut after = before.clone();
    // A page with three things inside comes; a hidden group flips its flags.
    let mut page = node(20, Some(1), Role::Group, "Page 3");
    page.bounds = Some(crate::protocol::Bounds::new(0.0, 0.0, 10.0, 10.0));
    after.nodes.push(page);
    for id in 21..24 {
        let mut inside = node(id, Some(20), Role::Button, &format!("B{id}"));
        inside.bounds = Some(crate::protocol::Bounds::new(0.0, 0.0, 5.0, 5.0));
        after.nodes.push(inside);
    }
    after.nodes[4].label = Some("Swatch 2".into());
    let new = Snapshot::take(&after, &mut refs);
    let brief = brief(&old, &new, 1).render();
    assert_eq!(
        brief,
        "= @e9 [button] \"Copy\"\n+ @e10 [group] \"Page 3\" (+3)\n"
    );
    let full = diff(&old, &new, 1).render();
    assert!(full.contains("Swatch 2") && full.contains("B21"), "{full}");
}

#[test]
fn a_field_says_what_text_is_selected() {
    let mut tree = counter(0, "one two three two");
    tree.nodes[2].selection = Some([4, 7]);
    let snap = Snapshot::take(&tree, &mut RefMap::new());
    assert_eq!(
        snap.element(Ref(3)).unwrap().line(),
        "@e3 [textField] \"Name\" value=\"one two three two\" selected=\"two\" key=name focused"
    );
    tree.nodes[2].selection = Some([3, 3]);
    let caret = Snapshot::take(&tree, &mut RefMap::new());
    assert!(!caret.element(Ref(3)).unwrap().line().contains("selected="));
}

#[test]
fn a_menu_that_opens_shows_its_items_in_a_brief_diff() {
    let mut refs = RefMap::new();
    let before = clipboard_demo();
    let old = Snapshot::take(&before, &mut refs);
    let mut after = before.clone();
    let at = Some(crate::protocol::Bounds::new(0.0, 0.0, 10.0, 10.0));
    let mut menu = node(30, Some(1), Role::Menu, "");
    menu.bounds = at;
    let mut page = node(31, Some(30), Role::Group, "");
    page.bounds = at;
    after.nodes.extend([menu, page]);
    for (id, label) in [(32, "Basic"), (33, "Advanced")] {
        let mut item = node(id, Some(31), Role::MenuItem, label);
        item.bounds = at;
        after.nodes.push(item);
    }
    let new = Snapshot::take(&after, &mut refs);
    assert_eq!(
        brief(&old, &new, 0).render(),
        "+ @e10 [menu] (+1)\n+ @e12 [menuItem] \"Basic\"\n+ @e13 [menuItem] \"Advanced\"\n"
    );
}

#[test]
fn the_focused_element_inside_what_came_keeps_its_line() {
    let mut refs = RefMap::new();
    let before = clipboard_demo();
    let old = Snapshot::take(&before, &mut refs);
    let mut after = before.clone();
    let at = Some(crate::protocol::Bounds::new(0.0, 0.0, 10.0, 10.0));
    let mut bar = node(40, Some(1), Role::Toolbar, "");
    bar.bounds = at;
    let mut field = node(41, Some(40), Role::TextField, "");
    field.bounds = at;
    let mut up = node(42, Some(40), Role::Button, "Up");
    up.bounds = at;
    after.nodes.extend([bar, field, up]);
    after.focus = Some(ElementId(41));
    let new = Snapshot::take(&after, &mut refs);
    assert_eq!(
        brief(&old, &new, 0).render(),
        "+ @e10 [toolbar] (+1)\n+ @e11 [textField] focused\n"
    );
}
