//! The virtual keyboard's keymap, written by uidrive: every keysym a request
//! types gets a key of its own with that one keysym on it, so any character
//! is typed by one key press with no modifier, and modifiers are sent as
//! the keyboard's state (`zwp_virtual_keyboard_v1.modifiers`).

use uidrive_core::protocol::{KeyChord, Modifier};
use uidrive_core::{Error, Result};

/// XKB keycodes 9..=254 (evdev codes 1..=246) carry keysyms.
const FIRST: u32 = 9;
const LAST: u32 = 254;
/// A key with no keysym on the highest keycode X allows. xkbcommon ignores
/// a keymap's `maximum` and takes the highest keycode named as the
/// keymap's, and GTK 3 (3.24.38, `gdk_keymap_get_entries_for_keyval` on
/// Wayland) looks for a keysym's keys below that maximum only: the key
/// uidrive added last was typed but GTK's key bindings, accelerators and
/// mnemonics never matched it (Enter, Tab and Space to a dialog, Ctrl+F),
/// as its keycode was the keymap's highest. This key keeps every real
/// one below the maximum.
const SPARE: u32 = 255;

/// Keysyms on keys, by evdev code (`keys[i]` is on evdev code `i + 1`).
#[derive(Debug, Default, Clone)]
pub struct Keymap {
    keys: Vec<u32>,
}

impl Keymap {
    /// The evdev code of the key that carries `sym`.
    pub fn code(&self, sym: u32) -> Option<u32> {
        self.keys
            .iter()
            .position(|&k| k == sym)
            .map(|at| at as u32 + FIRST - 8)
    }

    /// Puts each of `syms` on a key; `held` (evdev codes) keep theirs.
    /// Returns whether the keymap changed (and must be sent again).
    pub fn place_all(&mut self, syms: &[u32], held: &[u32]) -> Result<bool> {
        let mut missing: Vec<u32> = syms
            .iter()
            .copied()
            .filter(|&s| self.code(s).is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(false);
        }
        let capacity = (LAST - FIRST + 1) as usize;
        for sym in missing {
            if self.keys.len() < capacity {
                self.keys.push(sym);
                continue;
            }
            // Full: reuse a key this request does not need and nobody holds.
            let free = (0..self.keys.len()).find(|&at| {
                !syms.contains(&self.keys[at]) && !held.contains(&(at as u32 + FIRST - 8))
            });
            match free {
                Some(at) => self.keys[at] = sym,
                None => {
                    return Err(Error::unsupported(format!(
                        "this input needs more than {capacity} different keys at once"
                    ))
                    .with_suggestion("split the text into several input requests"))
                }
            }
        }
        Ok(true)
    }

    /// The keymap in XKB's text format.
    pub fn text(&self) -> String {
        let mut out = String::from("xkb_keymap {\nxkb_keycodes \"uidrive\" {\n");
        out.push_str(&format!("minimum = 8;\nmaximum = {LAST};\n"));
        for at in 0..self.keys.len() {
            out.push_str(&format!("<K{}> = {};\n", at, at as u32 + FIRST));
        }
        out.push_str(&format!("<SPARE> = {SPARE};\n"));
        out.push_str("};\nxkb_types \"uidrive\" { include \"complete\" };\n");
        out.push_str("xkb_compat \"uidrive\" { include \"complete\" };\n");
        out.push_str("xkb_symbols \"uidrive\" {\n");
        for (at, sym) in self.keys.iter().enumerate() {
            out.push_str(&format!("key <K{at}> {{ [ 0x{sym:08x} ] }};\n"));
        }
        out.push_str("};\n};\n");
        out
    }
}

/// The keymap's real modifier of each of the protocol's modifiers (XKB's
/// core masks, which the `complete` compatibility map binds them to).
pub fn modifier_mask(m: Modifier) -> u32 {
    match m {
        Modifier::Shift => 1,
        Modifier::Ctrl | Modifier::CmdOrCtrl => 4,
        Modifier::Alt => 8,
        Modifier::Super => 64,
    }
}

pub fn char_keysym(c: char) -> Result<u32> {
    uidrive_x11::char_keysym(c).ok_or_else(|| {
        Error::invalid_request(format!(
            "the control character U+{:04X} cannot be typed",
            c as u32
        ))
        .with_suggestion("send it as a key event (Enter, Tab, Backspace) instead")
    })
}

pub fn chord_keysym(chord: &KeyChord) -> Result<u32> {
    uidrive_x11::key_keysym(chord.key)
        .ok_or_else(|| Error::invalid_request(format!("the key {} has no keysym", chord.key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_keysym_gets_a_key_of_its_own_and_the_keymap_names_it() {
        let mut map = Keymap::default();
        assert!(map.place_all(&[0x61, 0x41, 0x61], &[]).unwrap());
        assert_eq!(map.code(0x41), Some(1));
        assert_eq!(map.code(0x61), Some(2));
        assert!(!map.place_all(&[0x41], &[]).unwrap());
        let text = map.text();
        assert!(text.contains("<K1> = 10;"), "{text}");
        assert!(text.contains("key <K0> { [ 0x00000041 ] };"), "{text}");
        // The highest keycode carries no keysym (see SPARE).
        assert!(text.contains("<SPARE> = 255;"), "{text}");
        assert!(!text.contains("key <SPARE>"), "{text}");
        // A full keymap reuses keys the request does not need.
        let many: Vec<u32> = (0x0100_0400..0x0100_0400 + 246).collect();
        assert!(map.place_all(&many, &[]).unwrap());
        assert!(many.iter().all(|&s| map.code(s).is_some()));
        assert_eq!(many.iter().filter_map(|&s| map.code(s)).max(), Some(246));
        let more: Vec<u32> = (0x0100_1000..0x0100_1000 + 247).collect();
        assert!(map.place_all(&more, &[]).is_err());
    }
}
