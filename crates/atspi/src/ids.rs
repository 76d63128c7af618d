//! Element ids: a stable 64-bit hash of the object's bus name and path.

use uidrive_core::protocol::ElementId;

/// The id of the object at `path` in the app at `bus`: the same for the same
/// object in every read while it lives, and the same in every build.
pub fn element_id(bus: &str, path: &str) -> ElementId {
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
}
