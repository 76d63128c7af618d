//! AT-SPI state sets to the protocol's states.

use uidrive_core::protocol::State;

/// AT-SPI state numbers this driver reads.
pub mod st {
    pub const ACTIVE: u32 = 1;
    pub const BUSY: u32 = 3;
    pub const CHECKED: u32 = 4;
    pub const DEFUNCT: u32 = 6;
    pub const EDITABLE: u32 = 7;
    pub const ENABLED: u32 = 8;
    pub const EXPANDABLE: u32 = 9;
    pub const EXPANDED: u32 = 10;
    pub const FOCUSABLE: u32 = 11;
    pub const FOCUSED: u32 = 12;
    pub const HORIZONTAL: u32 = 14;
    pub const MULTI_LINE: u32 = 17;
    pub const MULTISELECTABLE: u32 = 18;
    pub const PRESSED: u32 = 20;
    pub const SELECTABLE: u32 = 22;
    pub const SELECTED: u32 = 23;
    pub const SENSITIVE: u32 = 24;
    pub const SHOWING: u32 = 25;
    pub const VERTICAL: u32 = 29;
    pub const VISIBLE: u32 = 30;
    pub const MANAGES_DESCENDANTS: u32 = 31;
    pub const INDETERMINATE: u32 = 32;
    pub const INVALID_ENTRY: u32 = 36;
    pub const SELECTABLE_TEXT: u32 = 38;
    pub const READ_ONLY: u32 = 43;
}

/// A state set as AT-SPI sends it: two 32-bit words of flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateSet(pub u64);

impl StateSet {
    pub fn from_words(words: &[u32]) -> StateSet {
        let low = u64::from(words.first().copied().unwrap_or(0));
        let high = u64::from(words.get(1).copied().unwrap_or(0));
        StateSet(low | (high << 32))
    }

    pub fn has(self, state: u32) -> bool {
        state < 64 && self.0 & (1 << state) != 0
    }

    /// Whether a person could see the element. GTK 4 sets VISIBLE but never SHOWING.
    pub fn is_shown(self, toolkit_sets_showing: bool) -> bool {
        if toolkit_sets_showing {
            self.has(st::SHOWING)
        } else {
            self.has(st::VISIBLE)
        }
    }

    /// Whether the element takes input. GTK 4 sets SENSITIVE but never ENABLED.
    pub fn is_enabled(self) -> bool {
        self.has(st::SENSITIVE) || self.has(st::ENABLED)
    }
}

/// The protocol states of an element with these AT-SPI states.
pub fn protocol_states(set: StateSet, atspi_role: u32, toolkit_sets_showing: bool) -> Vec<State> {
    let mut out = Vec::new();
    let mut add = |cond: bool, state: State| {
        if cond {
            out.push(state)
        }
    };
    let toggle_role = matches!(atspi_role, 62); // toggle buttons report PRESSED when on
    add(set.has(st::FOCUSABLE), State::Focusable);
    add(!set.is_enabled(), State::Disabled);
    add(
        set.has(st::CHECKED) || (toggle_role && set.has(st::PRESSED)),
        State::Checked,
    );
    add(set.has(st::INDETERMINATE), State::Mixed);
    add(set.has(st::SELECTED), State::Selected);
    add(set.has(st::EXPANDED), State::Expanded);
    add(set.has(st::EXPANDABLE), State::Expandable);
    add(set.has(st::MULTI_LINE), State::Multiline);
    add(atspi_role == 40, State::Password);
    add(
        set.has(st::READ_ONLY) || (is_text_entry(atspi_role) && !set.has(st::EDITABLE)),
        State::ReadOnly,
    );
    add(set.has(st::SELECTABLE), State::Selectable);
    add(!set.is_shown(toolkit_sets_showing), State::Offscreen);
    add(set.has(st::MULTISELECTABLE), State::Multiselectable);
    add(set.has(st::INVALID_ENTRY), State::Invalid);
    add(set.has(st::VERTICAL), State::Vertical);
    add(set.has(st::HORIZONTAL), State::Horizontal);
    add(set.has(st::BUSY), State::Busy);
    out
}

fn is_text_entry(atspi_role: u32) -> bool {
    matches!(atspi_role, 40 | 61 | 79)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_become_flags_and_states() {
        let set = StateSet::from_words(&[
            (1 << st::FOCUSABLE) | (1 << st::SENSITIVE) | (1 << st::SHOWING) | (1 << st::CHECKED),
            0,
        ]);
        assert_eq!(
            protocol_states(set, 7, true),
            vec![State::Focusable, State::Checked]
        );
        // GTK 4: visible but never showing is on screen; insensitive is disabled.
        let gtk4 = StateSet::from_words(&[1 << st::VISIBLE, 0]);
        assert_eq!(protocol_states(gtk4, 43, false), vec![State::Disabled]);
        let high = StateSet::from_words(&[0, 1 << (st::READ_ONLY - 32)]);
        assert!(high.has(st::READ_ONLY));
    }
}
