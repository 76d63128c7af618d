//! Element ids: a stable 64-bit hash of the object's bus name and path, or
//! for a table's cell made anew at every ask (Qt), of its place.

use std::collections::HashMap;
use std::sync::Mutex;
use uidrive_core::protocol::ElementId;

/// The id of the object at `path` in the app at `bus`: the same for the same
/// object in every read while it lives, and the same in every build; a cell
/// named by its place ([`name_by_place`]) has its place's id.
pub fn element_id(bus: &str, path: &str) -> ElementId {
    let places = PLACES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(id) = places.ids.get(&(bus.to_string(), path.to_string())) {
        return *id;
    }
    drop(places);
    hash_id(bus, path)
}

/// Cells named by their place: the object's (bus, path) to its place's id,
/// and each place's latest object, so that one place holds one entry.
#[derive(Default)]
struct Places {
    ids: HashMap<(String, String), ElementId>,
    latest: HashMap<(String, String, i32, i32), String>,
}

static PLACES: std::sync::LazyLock<Mutex<Places>> = std::sync::LazyLock::new(Mutex::default);

/// Gives the cell object `cell_path` of the app at `bus`, just asked of the
/// table `table_path` at `(row, col)`, the id of that place: the id reads
/// give the cell there, read after read, and that a hit test landing on it
/// names. What the cell shows is asked afresh at every read all the same.
pub fn name_by_place(bus: &str, cell_path: &str, table_path: &str, (row, col): (i32, i32)) {
    let id = hash_id(bus, &format!("{table_path}#{row},{col}"));
    let mut places = PLACES.lock().unwrap_or_else(|e| e.into_inner());
    let place = (bus.to_string(), table_path.to_string(), row, col);
    if let Some(old) = places.latest.insert(place, cell_path.to_string()) {
        places.ids.remove(&(bus.to_string(), old));
    }
    places
        .ids
        .insert((bus.to_string(), cell_path.to_string()), id);
}

fn hash_id(bus: &str, path: &str) -> ElementId {
    // FNV-1a: tiny, fixed, and spreads short paths well enough for ids.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bus.bytes().chain([0u8]).chain(path.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    ElementId(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_tell_objects_apart() {
        let a = element_id(":1.19", "/org/a11y/atspi/accessible/12");
        assert_eq!(a, element_id(":1.19", "/org/a11y/atspi/accessible/12"));
        assert_ne!(a, element_id(":1.20", "/org/a11y/atspi/accessible/12"));
        assert_ne!(a, element_id(":1.19", "/org/a11y/atspi/accessible/13"));
        assert_ne!(element_id(":1.1", "9/x"), element_id(":1.19", "/x"));
    }

    #[test]
    fn a_cell_named_by_its_place_keeps_its_id_as_its_object_changes() {
        name_by_place(":1.7", "/cell/1", "/table", (2, 0));
        let first = element_id(":1.7", "/cell/1");
        name_by_place(":1.7", "/cell/2", "/table", (2, 0));
        assert_eq!(element_id(":1.7", "/cell/2"), first);
        // The place's old object is its own again, and another place differs.
        assert_eq!(element_id(":1.7", "/cell/1"), hash_id(":1.7", "/cell/1"));
        name_by_place(":1.7", "/cell/3", "/table", (3, 0));
        assert_ne!(element_id(":1.7", "/cell/3"), first);
    }
}
