//! Key chords as menu accelerators write them: `Enter`, `Shift+Tab`, `CmdOrCtrl+Z`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A modifier held during pointer or key input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Modifier {
    /// The Shift key.
    Shift,
    /// The Control key.
    Ctrl,
    /// The Alt (Option) key.
    Alt,
    /// The Super (Meta, Cmd, Windows) key.
    Super,
    /// Cmd on macOS, Ctrl elsewhere.
    CmdOrCtrl,
}

impl Modifier {
    /// The spelling accelerators use (`Shift`, `Ctrl`, `Alt`, `Super`, `CmdOrCtrl`).
    pub fn accelerator_name(self) -> &'static str {
        match self {
            Modifier::Shift => "Shift",
            Modifier::Ctrl => "Ctrl",
            Modifier::Alt => "Alt",
            Modifier::Super => "Super",
            Modifier::CmdOrCtrl => "CmdOrCtrl",
        }
    }

    fn from_accelerator(word: &str) -> Option<Modifier> {
        Some(match word.to_ascii_lowercase().as_str() {
            "shift" => Modifier::Shift,
            "ctrl" | "control" => Modifier::Ctrl,
            "alt" | "option" => Modifier::Alt,
            "super" | "meta" | "cmd" | "command" | "win" => Modifier::Super,
            "cmdorctrl" | "commandorcontrol" => Modifier::CmdOrCtrl,
            _ => return None,
        })
    }
}

/// A key that types no character of its own, or a character key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A key with a name, as `Enter` or `F5`.
    Named(NamedKey),
    /// A character key, as `A`, `7` or `/`.
    Char(char),
}

macro_rules! named_keys {
    ($($variant:ident => $name:literal $(| $alias:literal)*),+ $(,)?) => {
        /// Keys with names, as accelerators write them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum NamedKey { $(#[doc = concat!("`", $name, "`.")] $variant),+ }

        impl NamedKey {
            /// Every named key.
            pub const ALL: &'static [NamedKey] = &[$(NamedKey::$variant),+];

            /// The key's name as accelerators write it, as `PageDown`.
            pub fn as_str(self) -> &'static str {
                match self { $(NamedKey::$variant => $name),+ }
            }

            fn parse(word: &str) -> Option<NamedKey> {
                let lower = word.to_ascii_lowercase();
                $(
                    if lower == $name.to_ascii_lowercase() $(|| lower == $alias)* {
                        return Some(NamedKey::$variant);
                    }
                )+
                None
            }
        }
    };
}

named_keys! {
    Enter => "Enter" | "return",
    Tab => "Tab",
    Space => "Space",
    Backspace => "Backspace",
    Delete => "Delete" | "del",
    Insert => "Insert" | "ins",
    Escape => "Escape" | "esc",
    Up => "Up" | "arrowup",
    Down => "Down" | "arrowdown",
    Left => "Left" | "arrowleft",
    Right => "Right" | "arrowright",
    Home => "Home",
    End => "End",
    PageUp => "PageUp",
    PageDown => "PageDown",
    Plus => "Plus",
    CapsLock => "CapsLock",
    NumLock => "NumLock",
    ScrollLock => "ScrollLock",
    PrintScreen => "PrintScreen",
    ContextMenu => "ContextMenu" | "menu",
    // A modifier as a key of its own, for holding it alone (`keyDown` of
    // `Shift`); in a chord's head it stays a modifier (`Shift+Tab`).
    Shift => "Shift",
    Ctrl => "Ctrl" | "control",
    Alt => "Alt" | "option",
    Super => "Super" | "meta" | "cmd",
    F1 => "F1", F2 => "F2", F3 => "F3", F4 => "F4", F5 => "F5", F6 => "F6",
    F7 => "F7", F8 => "F8", F9 => "F9", F10 => "F10", F11 => "F11", F12 => "F12",
    F13 => "F13", F14 => "F14", F15 => "F15", F16 => "F16", F17 => "F17", F18 => "F18",
    F19 => "F19", F20 => "F20", F21 => "F21", F22 => "F22", F23 => "F23", F24 => "F24",
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Named(named) => f.write_str(named.as_str()),
            Key::Char(c) => write!(f, "{c}"),
        }
    }
}

/// A key with the modifiers held while it is pressed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyChord {
    /// The modifiers held, in the order written.
    pub mods: Vec<Modifier>,
    /// The key pressed.
    pub key: Key,
}

impl KeyChord {
    /// `key` with no modifiers.
    pub fn new(key: Key) -> KeyChord {
        KeyChord {
            mods: Vec::new(),
            key,
        }
    }

    /// The character a keystroke of this chord types in a text field, when
    /// it types one that is known without the keyboard's layout: a
    /// character key with no modifier, or a letter with Shift (its capital);
    /// Space types a space. `None` for shortcuts (Ctrl, Alt, Super) and
    /// other named keys.
    pub fn typed_char(&self) -> Option<char> {
        let shift = match self.mods.as_slice() {
            [] => false,
            [Modifier::Shift] => true,
            _ => return None,
        };
        match self.key {
            Key::Char(c) if !shift => Some(c),
            Key::Char(c) if c.is_alphabetic() => {
                let mut upper = c.to_uppercase();
                match (upper.next(), upper.next()) {
                    (Some(u), None) => Some(u),
                    _ => None,
                }
            }
            Key::Named(NamedKey::Space) => Some(' '),
            _ => None,
        }
    }
}

/// The longest key chord, in bytes: five modifiers and the longest key
/// name fit in well under it (`CmdOrCtrl+Shift+Alt+Super+Ctrl+ContextMenu`).
pub const MAX_CHORD_BYTES: usize = 64;

impl FromStr for KeyChord {
    type Err = String;

    /// Parses `Enter`, `Shift+Tab`, `CmdOrCtrl+Z` or `Ctrl+Plus`; a lone `+` is the plus key.
    fn from_str(text: &str) -> Result<KeyChord, String> {
        if text.is_empty() {
            return Err("a key chord is empty; write a key such as `Enter` or `Ctrl+A`".into());
        }
        if text.len() > MAX_CHORD_BYTES {
            let start: String = text.chars().take(24).collect();
            return Err(format!(
                "the key chord `{start}…` is {} bytes; a chord is at most {MAX_CHORD_BYTES} (modifiers and one key, as `Ctrl+Shift+Z`)",
                text.len()
            ));
        }
        let (mod_words, key_word) = match text.strip_suffix("++") {
            Some(head) => (head, "+"),
            None if text == "+" => ("", "+"),
            None => match text.rfind('+') {
                Some(at) => (&text[..at], &text[at + 1..]),
                None => ("", text),
            },
        };
        let mut mods = Vec::new();
        if !mod_words.is_empty() {
            for word in mod_words.split('+') {
                let modifier = Modifier::from_accelerator(word).ok_or_else(|| {
                    format!("`{word}` in `{text}` is not a modifier; use Shift, Ctrl, Alt, Super or CmdOrCtrl")
                })?;
                if !mods.contains(&modifier) {
                    mods.push(modifier);
                }
            }
        }
        let mut chars = key_word.chars();
        let key = match (chars.next(), chars.next()) {
            (Some(c), None) => Key::Char(c),
            _ => Key::Named(NamedKey::parse(key_word).ok_or_else(|| {
                format!(
                    "`{key_word}` in `{text}` is not a key; use one character or a name such as Enter, Tab, Escape, Up, PageDown, F5"
                )
            })?),
        };
        Ok(KeyChord { mods, key })
    }
}

impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for modifier in &self.mods {
            write!(f, "{}+", modifier.accelerator_name())?;
        }
        write!(f, "{}", self.key)
    }
}

impl Serialize for KeyChord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for KeyChord {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_parse_as_accelerators_write_them() {
        let chord: KeyChord = "CmdOrCtrl+Z".parse().unwrap();
        assert_eq!(chord.mods, vec![Modifier::CmdOrCtrl]);
        assert_eq!(chord.key, Key::Char('Z'));
        assert_eq!(chord.to_string(), "CmdOrCtrl+Z");

        let chord: KeyChord = "shift+tab".parse().unwrap();
        assert_eq!(chord.to_string(), "Shift+Tab");
        assert_eq!(
            "Return".parse::<KeyChord>().unwrap().key,
            Key::Named(NamedKey::Enter)
        );
        assert_eq!("Ctrl++".parse::<KeyChord>().unwrap().key, Key::Char('+'));
        assert_eq!("é".parse::<KeyChord>().unwrap().key, Key::Char('é'));
    }

    #[test]
    fn a_modifier_alone_is_a_key_to_hold() {
        let shift: KeyChord = "Shift".parse().unwrap();
        assert_eq!(
            (shift.mods.len(), shift.key),
            (0, Key::Named(NamedKey::Shift))
        );
        let both: KeyChord = "ctrl+shift".parse().unwrap();
        assert_eq!(both.mods, vec![Modifier::Ctrl]);
        assert_eq!(both.to_string(), "Ctrl+Shift");
        assert_eq!(
            "Control".parse::<KeyChord>().unwrap().key,
            Key::Named(NamedKey::Ctrl)
        );
        // In a chord's head a modifier stays a modifier.
        let tab: KeyChord = "Shift+Tab".parse().unwrap();
        assert_eq!(tab.mods, vec![Modifier::Shift]);
    }

    #[test]
    fn a_huge_chord_is_refused_in_a_short_message() {
        // The 10 MB chord gave a 31.4 MB error message.
        let huge = "Ctrl+".repeat(2_000_000) + "a";
        let err = huge.parse::<KeyChord>().unwrap_err();
        assert!(err.len() < 200, "{} bytes", err.len());
        assert!(err.contains("10000001 bytes"), "{err}");
        let longest = "CmdOrCtrl+Shift+Alt+Super+Ctrl+ContextMenu";
        assert!(longest.len() <= MAX_CHORD_BYTES);
        assert!(longest.parse::<KeyChord>().is_ok());
    }

    #[test]
    fn bad_chords_say_what_is_wrong() {
        let err = "Hyper+A".parse::<KeyChord>().unwrap_err();
        assert!(err.contains("`Hyper`"), "{err}");
        let err = "Ctrl+Launch".parse::<KeyChord>().unwrap_err();
        assert!(err.contains("`Launch`"), "{err}");
        assert!("".parse::<KeyChord>().is_err());
    }
}
