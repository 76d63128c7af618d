//! The keyboard as the X server maps it: which keycode types which keysym,
//! and keycodes lent to characters that are on no key: first those with no
//! keysym, then those of multimedia keys (`XF86...`), restored afterwards.
//!
//! A borrowed keycode stays mapped after its key events are sent and is given
//! back only when it is needed for another character or when the connection
//! closes. Toolkits (GDK, xkbcommon) re-read the keymap lazily, when they
//! handle the next key event; giving the keycode back right after typing
//! would let them read the restored map and type the wrong character.

use x11rb::protocol::xproto::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

use uidrive_core::protocol::{Key, Modifier, NamedKey};
use uidrive_core::{Error, Result};

use crate::x11::x_error;

const NO_SYMBOL: u32 = 0;

/// A keycode lent to one keysym at a time: one with nothing on it, or else
/// one of a multimedia key (`XF86...`) that no test types, restored after.
#[derive(Debug, Clone)]
struct Slot {
    keycode: u8,
    /// Its keysyms before it was lent (all `NoSymbol` for a spare keycode).
    original: Vec<u32>,
    keysym: Option<u32>,
    /// When it was last lent, for least-recently-used reuse.
    lent_at: u64,
}

pub(crate) struct Keyboard {
    min: u8,
    max: u8,
    per: u8,
    syms: Vec<u32>,
    slots: Option<Vec<Slot>>,
    clock: u64,
    /// Keycodes pressed by `keyDown` or `pointerDown` and not yet released.
    pub held: Vec<u8>,
    /// Pointer buttons pressed by `pointerDown` and not yet released.
    pub buttons: Vec<u8>,
}

/// Where a keysym is: its keycode, and whether Shift selects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyPlace {
    pub keycode: u8,
    pub shift: bool,
}

impl Keyboard {
    pub fn new(min: u8, max: u8) -> Keyboard {
        Keyboard {
            min,
            max,
            per: 0,
            syms: Vec::new(),
            slots: None,
            clock: 0,
            held: Vec::new(),
            buttons: Vec::new(),
        }
    }

    /// Reads the current mapping (another client may have changed it).
    pub fn refresh(&mut self, conn: &RustConnection) -> Result<()> {
        let count = self.max - self.min + 1;
        let reply = conn
            .get_keyboard_mapping(self.min, count)
            .map_err(|e| x_error("reading the keyboard mapping", e))?
            .reply()
            .map_err(|e| x_error("reading the keyboard mapping", e))?;
        self.per = reply.keysyms_per_keycode;
        self.syms = reply.keysyms;
        if self.slots.is_none() {
            let modifiers = modifier_keycodes(conn)?;
            let lendable = (self.min..=self.max)
                .filter(|k| !modifiers.contains(k))
                .filter(|&k| {
                    self.keysyms(k)
                        .iter()
                        .all(|&s| s == NO_SYMBOL || is_multimedia(s))
                })
                .map(|keycode| Slot {
                    keycode,
                    original: self.keysyms(keycode).to_vec(),
                    keysym: None,
                    lent_at: 0,
                })
                .collect();
            self.slots = Some(lendable);
        }
        // A lent keycode someone else remapped is no longer ours to describe.
        let mut slots = self.slots.take().unwrap_or_default();
        for slot in &mut slots {
            if let Some(sym) = slot.keysym {
                if self.keysyms(slot.keycode).first() != Some(&sym) {
                    slot.keysym = None;
                }
            }
        }
        self.slots = Some(slots);
        Ok(())
    }

    fn keysyms(&self, keycode: u8) -> &[u32] {
        let per = self.per as usize;
        let start = (keycode - self.min) as usize * per;
        self.syms.get(start..start + per).unwrap_or(&[])
    }

    /// The key that types `keysym` at level 1 (no Shift) or level 2 (Shift).
    pub fn find(&self, keysym: u32) -> Option<KeyPlace> {
        for (level, shift) in [(0, false), (1, true)] {
            for keycode in self.min..=self.max {
                if self.keysyms(keycode).get(level) == Some(&keysym) {
                    return Some(KeyPlace { keycode, shift });
                }
            }
        }
        None
    }

    /// The key for `keysym`, lending a keycode when no key has it.
    /// `keep` lists keysyms whose lent keycodes must not be taken back now.
    pub fn place(&mut self, conn: &RustConnection, keysym: u32, keep: &[u32]) -> Result<KeyPlace> {
        if let Some(place) = self.find(keysym) {
            return Ok(place);
        }
        let held = self.held.clone();
        let per = self.per.max(1);
        let slots = self.slots.get_or_insert_with(Vec::new);
        let slot = slots
            .iter_mut()
            .filter(|s| !held.contains(&s.keycode))
            .filter(|s| s.keysym.is_none_or(|k| !keep.contains(&k)))
            // Free spare keycodes first, then free multimedia keys, then the least recently lent.
            .min_by_key(|s| {
                (
                    s.keysym.is_some(),
                    s.original.iter().any(|&k| k != NO_SYMBOL),
                    s.lent_at,
                )
            })
            .ok_or_else(|| {
                Error::unsupported(format!(
                    "no keycode is left to lend to the keysym {keysym:#x}, which is on no key"
                ))
                .with_suggestion(
                    "send fewer distinct characters that are on no key in one input request",
                )
            })?;
        // The same keysym on both levels, so Shift does not matter.
        let mut mapping = vec![NO_SYMBOL; per as usize];
        mapping[0] = keysym;
        if per > 1 {
            mapping[1] = keysym;
        }
        conn.change_keyboard_mapping(1, slot.keycode, per, &mapping)
            .map_err(|e| x_error("remapping a lent keycode", e))?;
        self.clock += 1;
        slot.keysym = Some(keysym);
        slot.lent_at = self.clock;
        let keycode = slot.keycode;
        let start = (keycode - self.min) as usize * per as usize;
        if let Some(entry) = self.syms.get_mut(start..start + per as usize) {
            entry.copy_from_slice(&mapping);
        }
        Ok(KeyPlace {
            keycode,
            shift: false,
        })
    }

    /// How many keycodes can be lent without taking back one that holds a
    /// keysym of `keep`.
    pub fn lendable_without(&self, keep: &[u32]) -> usize {
        self.slots
            .iter()
            .flatten()
            .filter(|s| s.keysym.is_none_or(|k| !keep.contains(&k)))
            .count()
    }

    /// Gives every lent keycode its own keysyms back.
    pub fn restore(&mut self, conn: &RustConnection) -> Result<()> {
        let per = self.per.max(1) as usize;
        for slot in self.slots.iter_mut().flatten() {
            if slot.keysym.take().is_some() {
                let mut original = slot.original.clone();
                original.resize(per, NO_SYMBOL);
                conn.change_keyboard_mapping(1, slot.keycode, per as u8, &original)
                    .map_err(|e| x_error("restoring a lent keycode", e))?;
            }
        }
        Ok(())
    }

    /// The key of a modifier (`CmdOrCtrl` is Ctrl on Linux).
    pub fn modifier(&self, modifier: Modifier) -> Result<u8> {
        let candidates: &[u32] = match modifier {
            Modifier::Shift => &[XK_SHIFT_L, XK_SHIFT_R],
            Modifier::Ctrl | Modifier::CmdOrCtrl => &[XK_CONTROL_L, XK_CONTROL_R],
            Modifier::Alt => &[XK_ALT_L, XK_ALT_R, XK_META_L],
            Modifier::Super => &[XK_SUPER_L, XK_SUPER_R],
        };
        candidates
            .iter()
            .find_map(|&sym| self.find(sym).filter(|p| !p.shift))
            .map(|p| p.keycode)
            .ok_or_else(|| {
                Error::unsupported(format!(
                    "the keyboard has no {} key",
                    modifier.accelerator_name()
                ))
            })
    }
}

/// `XF86...` keysyms: media, launch and hardware keys.
fn is_multimedia(keysym: u32) -> bool {
    (0x1008_ff00..=0x1008_ffff).contains(&keysym)
}

/// Keycodes bound to a modifier: never lent.
fn modifier_keycodes(conn: &RustConnection) -> Result<Vec<u8>> {
    Ok(conn
        .get_modifier_mapping()
        .map_err(|e| x_error("reading the modifier mapping", e))?
        .reply()
        .map_err(|e| x_error("reading the modifier mapping", e))?
        .keycodes)
}

const XK_SHIFT_L: u32 = 0xffe1;
const XK_SHIFT_R: u32 = 0xffe2;
const XK_CONTROL_L: u32 = 0xffe3;
const XK_CONTROL_R: u32 = 0xffe4;
const XK_META_L: u32 = 0xffe7;
const XK_ALT_L: u32 = 0xffe9;
const XK_ALT_R: u32 = 0xffea;
const XK_SUPER_L: u32 = 0xffeb;
const XK_SUPER_R: u32 = 0xffec;

/// The keysym that types `c`: Latin-1 keysyms equal their code points, others
/// use the Unicode keysym range (`0x0100_0000 + code point`), which GTK, Qt
/// and xkbcommon all understand. Control characters other than newline, tab
/// and backspace have no keysym.
pub fn char_keysym(c: char) -> Option<u32> {
    let code = c as u32;
    Some(match c {
        '\n' | '\r' => 0xff0d,
        '\t' => 0xff09,
        '\u{8}' => 0xff08,
        _ if c.is_control() => return None,
        _ if (0x20..=0x7e).contains(&code) || (0xa0..=0xff).contains(&code) => code,
        _ => 0x0100_0000 + code,
    })
}

/// The keysym of a chord's key. A letter names its key, so `Ctrl+Z` and
/// `Ctrl+z` both press the Z key without Shift.
pub fn key_keysym(key: Key) -> Option<u32> {
    match key {
        Key::Named(named) => Some(named_keysym(named)),
        Key::Char(c) if c.is_ascii_uppercase() => char_keysym(c.to_ascii_lowercase()),
        Key::Char(c) => char_keysym(c),
    }
}

pub fn named_keysym(key: NamedKey) -> u32 {
    match key {
        NamedKey::Enter => 0xff0d,
        NamedKey::Tab => 0xff09,
        NamedKey::Space => 0x20,
        NamedKey::Backspace => 0xff08,
        NamedKey::Delete => 0xffff,
        NamedKey::Insert => 0xff63,
        NamedKey::Escape => 0xff1b,
        NamedKey::Up => 0xff52,
        NamedKey::Down => 0xff54,
        NamedKey::Left => 0xff51,
        NamedKey::Right => 0xff53,
        NamedKey::Home => 0xff50,
        NamedKey::End => 0xff57,
        NamedKey::PageUp => 0xff55,
        NamedKey::PageDown => 0xff56,
        NamedKey::Plus => 0x2b,
        NamedKey::CapsLock => 0xffe5,
        NamedKey::NumLock => 0xff7f,
        NamedKey::ScrollLock => 0xff14,
        NamedKey::PrintScreen => 0xff61,
        NamedKey::ContextMenu => 0xff67,
        NamedKey::Shift => XK_SHIFT_L,
        NamedKey::Ctrl => XK_CONTROL_L,
        NamedKey::Alt => XK_ALT_L,
        NamedKey::Super => XK_SUPER_L,
        NamedKey::F1 => 0xffbe,
        NamedKey::F2 => 0xffbf,
        NamedKey::F3 => 0xffc0,
        NamedKey::F4 => 0xffc1,
        NamedKey::F5 => 0xffc2,
        NamedKey::F6 => 0xffc3,
        NamedKey::F7 => 0xffc4,
        NamedKey::F8 => 0xffc5,
        NamedKey::F9 => 0xffc6,
        NamedKey::F10 => 0xffc7,
        NamedKey::F11 => 0xffc8,
        NamedKey::F12 => 0xffc9,
        NamedKey::F13 => 0xffca,
        NamedKey::F14 => 0xffcb,
        NamedKey::F15 => 0xffcc,
        NamedKey::F16 => 0xffcd,
        NamedKey::F17 => 0xffce,
        NamedKey::F18 => 0xffcf,
        NamedKey::F19 => 0xffd0,
        NamedKey::F20 => 0xffd1,
        NamedKey::F21 => 0xffd2,
        NamedKey::F22 => 0xffd3,
        NamedKey::F23 => 0xffd4,
        NamedKey::F24 => 0xffd5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_map_to_latin1_or_unicode_keysyms() {
        assert_eq!(char_keysym('a'), Some(0x61));
        assert_eq!(char_keysym('é'), Some(0xe9));
        assert_eq!(char_keysym('✓'), Some(0x0100_2713));
        assert_eq!(char_keysym('\n'), Some(0xff0d));
        assert_eq!(char_keysym('\u{7}'), None);
    }

    #[test]
    fn chord_letters_name_their_key() {
        assert_eq!(key_keysym(Key::Char('Z')), Some(0x7a));
        assert_eq!(key_keysym(Key::Named(NamedKey::F24)), Some(0xffd5));
    }

    #[test]
    fn every_named_key_has_a_keysym() {
        for &key in NamedKey::ALL {
            assert_ne!(named_keysym(key), 0, "{key:?}");
        }
    }
}
