//! Reads that follow what the screen shows: views that change without
//! announcing it (GTK 3 tree views) are asked again at every read.

mod common;

use common::{find, launch};
use uidrive_core::protocol::{Action, ElementId, Node, Role, Tree};

/// The table's id and the column index of the header `header`.
fn column_index(tree: &Tree, header: &str) -> (ElementId, i64) {
    let grid = tree
        .nodes
        .iter()
        .find(|n| n.role == Role::TreeGrid || n.role == Role::Table)
        .expect("a table");
    let headers: Vec<&Node> = tree
        .nodes
        .iter()
        .filter(|n| n.parent == Some(grid.id) && n.role == Role::ColumnHeader)
        .collect();
    let at = headers
        .iter()
        .position(|h| h.label.as_deref() == Some(header))
        .unwrap_or_else(|| panic!("no column {header:?}"));
    (grid.id, headers[at].col_index.unwrap_or(at as i64 + 1))
}

/// The table's cells in the column headed `header`, in tree order.
fn cells<'t>(tree: &'t Tree, header: &str) -> impl Iterator<Item = (&'t Node, String)> {
    let (grid, col) = column_index(tree, header);
    tree.nodes
        .iter()
        .filter(move |n| n.parent == Some(grid) && n.role == Role::Cell && n.col_index == Some(col))
        .map(|n| (n, n.label.clone().or(n.value.clone()).unwrap_or_default()))
}

/// The texts of the cells in the column headed `header`, top to bottom.
fn column(tree: &Tree, header: &str) -> Vec<String> {
    cells(tree, header).map(|(_, text)| text).collect()
}

/// The same texts, by row.
fn column_by_row(tree: &Tree, header: &str) -> std::collections::BTreeMap<i64, String> {
    cells(tree, header)
        .filter_map(|(n, text)| Some((n.row_index?, text)))
        .collect()
}

fn numbers(texts: &[String]) -> Vec<u64> {
    texts.iter().filter_map(|t| t.parse().ok()).collect()
}

/// gnome-system-monitor's process list is a GTK 3 tree view: sorting it
/// moves every row without an event for the cells. A read after each click
/// on the ID header shows the order the screen shows: PID 1 first, then the
/// highest first.
#[test]
fn gnome_system_monitor_reads_back_its_sorted_rows() {
    let app = launch(&["gnome-system-monitor"]);
    let tree = app.wait_for("the process list shows PIDs", |t| {
        numbers(&column(t, "ID")).len() > 5
    });
    let header = find(&tree, Role::ColumnHeader, "ID", |_| true).id;
    app.act(header, Action::Press).unwrap();
    let ascending = app.wait_for("the rows sorted by PID, from PID 1", |t| {
        let pids = numbers(&column(t, "ID"));
        pids.first() == Some(&1) && pids.windows(2).all(|w| w[0] < w[1])
    });
    let lowest = numbers(&column(&ascending, "ID"));
    app.act(header, Action::Press).unwrap();
    app.wait_for("the rows sorted by PID, highest first", |t| {
        let pids = numbers(&column(t, "ID"));
        pids.len() > 5 && pids.windows(2).all(|w| w[0] > w[1]) && pids[0] > *lowest.last().unwrap()
    });
}

/// The Process Name column draws an icon and a name in one cell, which GTK 3
/// builds as a container cell that reads nothing around a cell per renderer.
/// Each row's cell in that column reads the name the screen shows there
/// (before, every one read nothing and only its inner text cell, a second
/// element, held the name).
#[test]
fn gnome_system_monitor_process_name_cells_read_their_names() {
    let app = launch(&["gnome-system-monitor"]);
    // A process can truly have no name where the list shows it (one that ends
    // or is still starting as the app lists it): a row reading none passes
    // only when /proc says so of its PID, so a cell that loses its name fails.
    let names_lost = |t: &Tree| {
        let pids = column_by_row(t, "ID");
        column_by_row(t, "Process Name")
            .iter()
            .filter(|(_, name)| name.is_empty())
            .any(|(row, _)| match pids.get(row) {
                Some(pid) if !pid.is_empty() => {
                    let comm =
                        std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                    !comm.trim().is_empty()
                }
                _ => true,
            })
    };
    let tree = app.wait_for(
        "the Process Name column reads a name in every row (or /proc says its process has none)",
        |t| {
            column(t, "Process Name")
                .iter()
                .filter(|n| !n.is_empty())
                .count()
                > 5
                && !names_lost(t)
        },
    );
    // One element per shown cell: no cell inside it reads the name again.
    let at: std::collections::HashMap<_, _> = tree.nodes.iter().map(|n| (n.id, n)).collect();
    let twice: Vec<&str> = tree
        .nodes
        .iter()
        .filter(|n| n.role == Role::Cell && n.label.is_some())
        .filter(|n| {
            n.parent
                .and_then(|p| at.get(&p))
                .is_some_and(|p| p.role == Role::Cell && p.label == n.label)
        })
        .filter_map(|n| n.label.as_deref())
        .collect();
    assert!(twice.is_empty(), "names read twice: {twice:?}");
}

/// A GTK 3 tree view scrolled down keeps its header where it was and draws
/// its first rows beneath it, while it answers their boxes and SHOWING as if
/// they were seen. A row whose centre the header covers reads as offscreen
/// (a click at its centre would sort the list); the rows below read as shown.
#[test]
fn gnome_system_monitor_rows_under_the_header_are_offscreen() {
    use uidrive_core::protocol::{Bounds, InputEvent, InputParams, State};
    use uidrive_core::Driver;

    let app = launch(&["gnome-system-monitor"]);
    let tree = app.wait_for("the process list shows rows", |t| {
        numbers(&column(t, "ID")).len() > 5
    });
    let grid = tree
        .nodes
        .iter()
        .find(|n| n.role == Role::TreeGrid || n.role == Role::Table)
        .and_then(|n| n.bounds)
        .expect("the process list has a box");
    let under = |cell: &Bounds, header: &Bounds| {
        let (x, y) = cell.center();
        x >= header.x
            && x < header.x + header.width
            && y >= header.y
            && y < header.y + header.height
    };
    // The wheel scrolls by amounts that are no whole number of rows: within
    // a few clicks, a row sits mostly beneath the header.
    for click in 1..=12 {
        app.driver
            .input(&InputParams {
                window: None,
                events: vec![InputEvent::Wheel {
                    x: grid.x + grid.width / 2.0,
                    y: grid.y + grid.height / 2.0,
                    dx: 0.0,
                    dy: 100.0,
                    precise: false,
                    mods: vec![],
                }],
                hold: false,
            })
            .expect("the wheel turns");
        app.idle();
        let tree = app.tree();
        let headers: Vec<Bounds> = tree
            .nodes
            .iter()
            .filter(|n| n.role == Role::ColumnHeader)
            .filter_map(|n| n.bounds)
            .collect();
        let cells: Vec<&Node> = tree
            .nodes
            .iter()
            .filter(|n| n.role == Role::Cell && n.bounds.is_some())
            .collect();
        let covered: Vec<&&Node> = cells
            .iter()
            .filter(|c| headers.iter().any(|h| under(&c.bounds.unwrap(), h)))
            .collect();
        let header_bottom = headers.iter().map(|h| h.y + h.height).fold(0.0, f64::max);
        let below: Vec<&&Node> = cells
            .iter()
            .filter(|c| {
                let b = c.bounds.unwrap();
                b.y >= header_bottom && b.y + b.height <= grid.y + grid.height
            })
            .collect();
        assert!(
            !below.is_empty(),
            "no row below the header after {click} wheel clicks"
        );
        assert!(
            below.iter().all(|c| !c.has_state(&State::Offscreen)),
            "rows wholly below the header read as offscreen"
        );
        if covered.is_empty() {
            continue;
        }
        let shown: Vec<_> = covered
            .iter()
            .filter(|c| !c.has_state(&State::Offscreen))
            .map(|c| (c.label.clone(), c.bounds))
            .collect();
        assert!(
            shown.is_empty(),
            "cells under the header read as shown: {shown:?}"
        );
        return;
    }
    panic!("12 wheel clicks never left a row beneath the header: nothing was checked");
}

/// The window `title`'s bounds on the screen, as the driver lists them.
fn window_bounds(app: &common::Running, title: &str) -> uidrive_core::protocol::Bounds {
    use uidrive_core::Driver;
    let windows = app.driver.windows().expect("the windows list");
    let window = windows
        .windows
        .iter()
        .find(|w| w.title == title)
        .unwrap_or_else(|| panic!("no window {title:?} in {:?}", windows.windows));
    window.bounds
}

/// Waits until the app wrote `what` to `marker` (it does once the change is laid out).
fn wait_for_marker(marker: &std::path::Path, what: &str) {
    let started = std::time::Instant::now();
    while std::fs::read_to_string(marker).unwrap_or_default() != what {
        assert!(
            started.elapsed() < common::DEADLINE,
            "the app did not report {what} moved"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn signal(app: &common::Running, name: &str) {
    let sent = std::process::Command::new("kill")
        .args([format!("-{name}"), app.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -{name}");
}

/// GTK 3 announces each new allocation of a widget (`BoundsChanged`) to a
/// driver that registered for it, so a whole read takes the boxes the read
/// before kept while the app announces nothing. A button the app moves with
/// no other event reads at its new place at the very next read (so does
/// everything inside the containers laid out again with it); after the
/// window moves, which lays out nothing, the boxes kept read where the
/// window now is (bounds count from its content).
#[test]
fn gtk3_kept_boxes_follow_a_widget_the_app_moves_and_the_window() {
    let dir = std::env::temp_dir().join(format!("uidrive-moving-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("moved");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/apps/gtk3_moving.py"
    );
    let app = launch(&["/usr/bin/python3", script, marker.to_str().unwrap()]);
    let kept = app.read_until_kept();
    assert!(
        app.driver.boxes_from_kept_reads() > 0,
        "the quiet window's read took kept boxes"
    );
    let target = |t: &Tree| {
        find(t, Role::Button, "Target", |_| true)
            .bounds
            .expect("a box")
    };
    let label = |t: &Tree| {
        find(t, Role::Text, "A label that stays", |_| true)
            .bounds
            .expect("a box")
    };
    let (was, label_was) = (target(&kept), label(&kept));

    signal(&app, "USR1");
    wait_for_marker(&marker, "button");
    let moved = app.tree();
    assert_eq!(
        target(&moved).x,
        was.x + 40.0,
        "the button reads where it moved"
    );
    assert_eq!(label(&moved), label_was);

    let window_was = window_bounds(&app, "Moving test");
    app.read_until_kept();
    signal(&app, "USR2");
    wait_for_marker(&marker, "window");
    let served = app.driver.boxes_from_kept_reads();
    let after = app.tree();
    assert_ne!(
        window_bounds(&app, "Moving test").x,
        window_was.x,
        "the window moved"
    );
    assert!(app.driver.boxes_from_kept_reads() > served);
    assert_eq!(
        target(&after),
        target(&moved),
        "the button, from the window's content"
    );
    assert_eq!(label(&after), label_was);
    let _ = std::fs::remove_dir_all(&dir);
}
