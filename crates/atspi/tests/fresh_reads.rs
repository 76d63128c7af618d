//! Reads that follow what the screen shows: views that change without
//! announcing it (GTK 3 tree views) are asked again at every read.

mod common;

use common::{find, launch};
use uidrive_core::protocol::{Action, Node, Role, Tree};

/// The texts of the cells in the column headed `header`, top to bottom.
fn column(tree: &Tree, header: &str) -> Vec<String> {
    let grid = tree
        .nodes
        .iter()
        .find(|n| n.role == Role::TreeGrid || n.role == Role::Table)
        .expect("a table");
    let in_grid = |n: &&Node| n.parent == Some(grid.id);
    let headers: Vec<&Node> = tree
        .nodes
        .iter()
        .filter(in_grid)
        .filter(|n| n.role == Role::ColumnHeader)
        .collect();
    let at = headers
        .iter()
        .position(|h| h.label.as_deref() == Some(header))
        .unwrap_or_else(|| panic!("no column {header:?}"));
    let col = headers[at].col_index.unwrap_or(at as i64 + 1);
    tree.nodes
        .iter()
        .filter(in_grid)
        .filter(|n| n.role == Role::Cell && n.col_index == Some(col))
        .map(|n| n.label.clone().or(n.value.clone()).unwrap_or_default())
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
