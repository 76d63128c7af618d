//! Real input through XTest: the protocol's pointer, wheel, key and text events.
//!
//! The X server handles the fake events exactly as it would a device's, so the
//! app sees ordinary X events. Keys go to the window with the input focus:
//! call [`X11::focus`] first on a display without a window manager.

use x11rb::protocol::xproto::{
    BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, KEY_PRESS_EVENT, KEY_RELEASE_EVENT,
    MOTION_NOTIFY_EVENT,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

use uidrive_core::protocol::{InputEvent, Key, KeyChord, Modifier, MouseButton, PointerButton};
use uidrive_core::{Error, Result};

use crate::keymap::{char_keysym, key_keysym, KeyPlace, Keyboard};
use crate::x11::{sync, x_error, Inner, X11};

/// DIPs scrolled by one wheel click. `wheel` sends `round(|d| / 100)` clicks
/// (at least one for a non-zero delta) on buttons 4/5 (vertical) and 6/7
/// (horizontal). X has no exact-amount scrolling through XTest, so `precise`
/// scrolls by the same discrete clicks.
pub const WHEEL_DIPS_PER_CLICK: f64 = 100.0;

impl X11 {
    /// Sends `events` as real X input. Coordinates in the events are relative
    /// to `origin`, the root coordinates of the window's content (DIPs are
    /// pixels here: the display has no scaling). Returns once the X server
    /// has handled every event (one round trip after the last). Keys and
    /// buttons the events leave down are released at the end.
    pub fn send(&self, origin: (f64, f64), events: &[InputEvent]) -> Result<()> {
        self.send_input(origin, events, false)
    }

    /// [`X11::send`]; with `hold`, keys and buttons the events leave down
    /// stay down (for a later request to release), else they are released
    /// when the events are done, or fail. A key event types no text (the
    /// protocol's rule): X gives every press of a character key to the app,
    /// which types it, so a character key's event must come with the text
    /// event of what it types (`key h, text h`: one keystroke, typing `h`),
    /// and alone it is refused before anything is sent.
    pub fn send_input(&self, origin: (f64, f64), events: &[InputEvent], hold: bool) -> Result<()> {
        let events = keystrokes(events)?;
        let mut guard = self.lock();
        let inner = &mut *guard;
        inner.keyboard.refresh(&inner.conn)?;
        let keys_before = inner.keyboard.held.clone();
        let buttons_before = inner.keyboard.buttons.clone();
        let mut sender = Sender {
            conn: &inner.conn,
            keyboard: &mut inner.keyboard,
            root: inner.root,
            origin,
            keep: Vec::new(),
        };
        let sent = sender
            .lend_keycodes(&events)
            .and_then(|()| events.iter().try_for_each(|event| sender.event(event)));
        let released = match hold && sent.is_ok() {
            true => Ok(()),
            false => sender.release_all_but(&keys_before, &buttons_before),
        };
        sent.and(released).and_then(|()| sync(&inner.conn))
    }

    /// Releases every key and button held down (by requests that held them).
    pub fn release_held(&self) -> Result<()> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let mut sender = Sender {
            conn: &inner.conn,
            keyboard: &mut inner.keyboard,
            root: inner.root,
            origin: (0.0, 0.0),
            keep: Vec::new(),
        };
        sender.release_all_but(&[], &[])?;
        sync(&inner.conn)
    }

    /// Maps every keycode borrowed for characters on no key back to nothing.
    /// [`X11`] does this itself when dropped.
    pub fn restore_keymap(&self) -> Result<()> {
        restore_keymap(&mut self.lock())
    }
}

pub(crate) fn restore_keymap(inner: &mut Inner) -> Result<()> {
    inner.keyboard.restore(&inner.conn)?;
    sync(&inner.conn)
}

struct Sender<'a> {
    conn: &'a RustConnection,
    keyboard: &'a mut Keyboard,
    root: u32,
    origin: (f64, f64),
    /// Keysyms this request types that are on no key: their lent keycodes
    /// must not be lent again until it is done.
    keep: Vec<u32>,
}

impl Sender<'_> {
    /// Lends keycodes for all the request's characters that are on no key
    /// before any event is sent, so a toolkit that re-reads the keymap at the
    /// first key sees every one of them.
    fn lend_keycodes(&mut self, events: &[InputEvent]) -> Result<()> {
        let mut needed = Vec::new();
        for event in events {
            match event {
                InputEvent::Text { text } => {
                    for c in text.chars() {
                        needed.push(char_keysym(c).ok_or_else(|| no_keysym(c))?);
                    }
                }
                InputEvent::Key { key }
                | InputEvent::KeyDown { key }
                | InputEvent::KeyUp { key } => {
                    needed.push(chord_keysym(key)?);
                }
                _ => {}
            }
        }
        needed.sort_unstable();
        needed.dedup();
        // Keysyms already on a lent keycode stay there for this whole request.
        self.keep = needed.clone();
        needed.retain(|&sym| self.keyboard.find(sym).is_none());
        let free = self.keyboard.lendable_without(&self.keep);
        if needed.len() > free {
            return Err(Error::unsupported(format!(
                "this input needs {} different characters that are on no key of the keyboard, \
                 but only {free} keycodes can be lent to type them",
                needed.len(),
            ))
            .with_suggestion("split the text into several input requests"));
        }
        for sym in needed {
            self.keyboard.place(self.conn, sym, &self.keep)?;
        }
        Ok(())
    }

    fn event(&mut self, event: &InputEvent) -> Result<()> {
        match event {
            InputEvent::PointerMove { x, y, mods } => {
                let pressed = self.press_mods(mods)?;
                self.motion(*x, *y)?;
                self.release(&pressed)
            }
            InputEvent::PointerDown(p) => {
                // Modifiers stay down until the matching pointerUp (a shift-drag).
                let pressed = self.press_mods(&p.mods)?;
                self.keyboard.held.extend(&pressed);
                self.motion(p.x, p.y)?;
                self.button(p, true)?;
                let button = button_number(p);
                if !self.keyboard.buttons.contains(&button) {
                    self.keyboard.buttons.push(button);
                }
                Ok(())
            }
            InputEvent::PointerUp(p) => {
                let pressed = self.press_mods(&p.mods)?;
                self.motion(p.x, p.y)?;
                self.button(p, false)?;
                let button = button_number(p);
                self.keyboard.buttons.retain(|&b| b != button);
                self.release(&pressed)?;
                self.release_held_mods(&p.mods)
            }
            InputEvent::Click(p) => {
                let pressed = self.press_mods(&p.mods)?;
                self.motion(p.x, p.y)?;
                for _ in 0..p.clicks().clamp(1, 3) {
                    self.button(p, true)?;
                    self.button(p, false)?;
                }
                self.release(&pressed)
            }
            InputEvent::Wheel {
                x, y, dx, dy, mods, ..
            } => {
                let pressed = self.press_mods(mods)?;
                self.motion(*x, *y)?;
                for (delta, back, forward) in [(*dy, 4u8, 5u8), (*dx, 6, 7)] {
                    let button = if delta < 0.0 { back } else { forward };
                    for _ in 0..wheel_clicks(delta) {
                        self.fake(BUTTON_PRESS_EVENT, button)?;
                        self.fake(BUTTON_RELEASE_EVENT, button)?;
                    }
                }
                self.release(&pressed)
            }
            InputEvent::KeyDown { key } => {
                let pressed = self.press_chord(key)?;
                self.keyboard.held.extend(&pressed);
                Ok(())
            }
            InputEvent::KeyUp { key } => self.release_chord(key),
            InputEvent::Key { key } => {
                let pressed = self.press_chord(key)?;
                self.release(&pressed)
            }
            InputEvent::Text { text } => {
                for c in text.chars() {
                    let sym = char_keysym(c).ok_or_else(|| no_keysym(c))?;
                    let place = self.keyboard.place(self.conn, sym, &self.keep)?;
                    self.tap(place)?;
                }
                Ok(())
            }
        }
    }

    fn fake(&self, kind: u8, detail: u8) -> Result<()> {
        self.conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, x11rb::NONE, 0, 0, 0)
            .map_err(|e| x_error("sending input", e))?;
        Ok(())
    }

    fn motion(&self, x: f64, y: f64) -> Result<()> {
        let to_root = |v: f64| v.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16;
        let (rx, ry) = (to_root(self.origin.0 + x), to_root(self.origin.1 + y));
        self.conn
            .xtest_fake_input(
                MOTION_NOTIFY_EVENT,
                0,
                x11rb::CURRENT_TIME,
                self.root,
                rx,
                ry,
                0,
            )
            .map_err(|e| x_error("moving the pointer", e))?;
        Ok(())
    }

    fn button(&self, p: &PointerButton, down: bool) -> Result<()> {
        let kind = if down {
            BUTTON_PRESS_EVENT
        } else {
            BUTTON_RELEASE_EVENT
        };
        self.fake(kind, button_number(p))
    }

    /// Releases the buttons and keys held now that were not held `before`
    /// (buttons first, then keys in the reverse order of their presses).
    fn release_all_but(&mut self, keys_before: &[u8], buttons_before: &[u8]) -> Result<()> {
        let buttons: Vec<u8> = self
            .keyboard
            .buttons
            .iter()
            .copied()
            .filter(|b| !buttons_before.contains(b))
            .collect();
        for &button in buttons.iter().rev() {
            self.fake(BUTTON_RELEASE_EVENT, button)?;
            self.keyboard.buttons.retain(|&b| b != button);
        }
        let keys: Vec<u8> = self
            .keyboard
            .held
            .iter()
            .copied()
            .filter(|k| !keys_before.contains(k))
            .collect();
        self.release(&keys)
    }

    /// Presses the modifiers not already down; returns the keycodes it pressed.
    fn press_mods(&mut self, mods: &[Modifier]) -> Result<Vec<u8>> {
        let mut pressed = Vec::new();
        for &m in mods {
            let keycode = self.keyboard.modifier(m)?;
            if !self.keyboard.held.contains(&keycode) && !pressed.contains(&keycode) {
                self.fake(KEY_PRESS_EVENT, keycode)?;
                pressed.push(keycode);
            }
        }
        Ok(pressed)
    }

    /// Releases keycodes in the reverse order of their presses.
    fn release(&mut self, keycodes: &[u8]) -> Result<()> {
        for &keycode in keycodes.iter().rev() {
            self.fake(KEY_RELEASE_EVENT, keycode)?;
            self.keyboard.held.retain(|&k| k != keycode);
        }
        Ok(())
    }

    fn release_held_mods(&mut self, mods: &[Modifier]) -> Result<()> {
        let mut held = Vec::new();
        for &m in mods {
            let keycode = self.keyboard.modifier(m)?;
            if self.keyboard.held.contains(&keycode) {
                held.push(keycode);
            }
        }
        self.release(&held)
    }

    /// Presses a chord's modifiers, then its key (with Shift when the key's
    /// character needs it and the chord has no Shift). Returns what it pressed.
    fn press_chord(&mut self, chord: &KeyChord) -> Result<Vec<u8>> {
        let sym = chord_keysym(chord)?;
        let place = self.keyboard.place(self.conn, sym, &self.keep)?;
        let mut pressed = self.press_mods(&chord.mods)?;
        if place.shift && !chord.mods.contains(&Modifier::Shift) {
            pressed.extend(self.press_mods(&[Modifier::Shift])?);
        }
        if !self.keyboard.held.contains(&place.keycode) {
            self.fake(KEY_PRESS_EVENT, place.keycode)?;
            pressed.push(place.keycode);
        }
        Ok(pressed)
    }

    fn release_chord(&mut self, chord: &KeyChord) -> Result<()> {
        let sym = chord_keysym(chord)?;
        let place = self.keyboard.place(self.conn, sym, &self.keep)?;
        let mut keys = Vec::new();
        for &m in &chord.mods {
            keys.push(self.keyboard.modifier(m)?);
        }
        if place.shift && !chord.mods.contains(&Modifier::Shift) {
            keys.push(self.keyboard.modifier(Modifier::Shift)?);
        }
        keys.push(place.keycode);
        // Release only what is down: the key first, then its modifiers.
        let down: Vec<u8> = keys
            .into_iter()
            .filter(|k| self.keyboard.held.contains(k))
            .collect();
        self.release(&down)
    }

    /// Types one character's key, with Shift around it when the key needs it.
    fn tap(&mut self, place: KeyPlace) -> Result<()> {
        let shift = match place.shift {
            true => self.press_mods(&[Modifier::Shift])?,
            false => Vec::new(),
        };
        self.fake(KEY_PRESS_EVENT, place.keycode)?;
        self.fake(KEY_RELEASE_EVENT, place.keycode)?;
        self.release(&shift)
    }
}

fn button_number(p: &PointerButton) -> u8 {
    match p.button() {
        MouseButton::Left => 1,
        MouseButton::Middle => 2,
        MouseButton::Right => 3,
    }
}

/// The events as X sends them: a `key` or `keyDown` of a key that types,
/// followed by the text event of what it types, is one keystroke (the text
/// event's first character is the key's); a character key's event without
/// that text is refused, since X would type it. Named keys go as they are.
fn keystrokes(events: &[InputEvent]) -> Result<Vec<InputEvent>> {
    let mut out = Vec::with_capacity(events.len());
    let mut at = 0;
    while at < events.len() {
        let event = &events[at];
        at += 1;
        let chord = match event {
            InputEvent::Key { key } | InputEvent::KeyDown { key } => key,
            other => {
                out.push(other.clone());
                continue;
            }
        };
        let typed = chord.typed_char();
        let text_after = match events.get(at) {
            Some(InputEvent::Text { text }) => Some(text),
            _ => None,
        };
        match (typed, text_after) {
            (Some(c), Some(text)) if text.starts_with(c) => {
                out.push(event.clone());
                let rest = &text[c.len_utf8()..];
                if !rest.is_empty() {
                    out.push(InputEvent::Text { text: rest.into() });
                }
                at += 1;
            }
            _ if matches!(chord.key, Key::Char(_)) && typed_on_x(chord) => {
                let shown = typed.map(String::from).unwrap_or_else(|| chord.to_string());
                return Err(Error::unsupported(format!(
                    "input.events[{}]: the {} event of `{chord}` would type `{shown}`: on X every press of a character key types it, and a key event types no text",
                    at - 1,
                    event.type_name()
                ))
                .with_suggestion(format!(
                    "send what it types as a text event right after it ({{\"type\": \"text\", \"text\": \"{shown}\"}}), as a keystroke that types is sent, or send only the text"
                )));
            }
            _ => out.push(event.clone()),
        }
    }
    Ok(out)
}

/// Whether a press of `chord` types a character on X: a character key with
/// no modifier but Shift (Ctrl, Alt and Super make it a shortcut).
fn typed_on_x(chord: &KeyChord) -> bool {
    chord.mods.iter().all(|m| *m == Modifier::Shift)
}

fn chord_keysym(chord: &KeyChord) -> Result<u32> {
    key_keysym(chord.key)
        .ok_or_else(|| Error::invalid_request(format!("the key {} has no X keysym", chord.key)))
}

fn no_keysym(c: char) -> Error {
    Error::invalid_request(format!(
        "the control character U+{:04X} cannot be typed",
        c as u32
    ))
    .with_suggestion("send it as a key event (Enter, Tab, Backspace) instead")
}

/// How many wheel clicks scroll `delta` DIPs.
fn wheel_clicks(delta: f64) -> u32 {
    if delta == 0.0 || !delta.is_finite() {
        return 0;
    }
    (delta.abs() / WHEEL_DIPS_PER_CLICK).round().max(1.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(text: &str) -> KeyChord {
        text.parse().unwrap()
    }

    #[test]
    fn a_key_and_its_text_are_one_keystroke_and_a_lone_character_key_is_refused() {
        let key = |k: &str| InputEvent::Key { key: chord(k) };
        let text = |t: &str| InputEvent::Text { text: t.into() };
        // The issue's `key h, text h, key i, text i`: two keystrokes.
        assert_eq!(
            keystrokes(&[key("h"), text("h"), key("i"), text("i")]).unwrap(),
            vec![key("h"), key("i")]
        );
        // The text's first character is the key's; the rest is typed as text.
        assert_eq!(
            keystrokes(&[key("Shift+a"), text("Abc")]).unwrap(),
            vec![key("Shift+a"), text("bc")]
        );
        // Named keys and shortcuts type nothing and go as they are.
        let plain = [key("Enter"), key("Ctrl+a"), key("Space"), text("x")];
        assert_eq!(keystrokes(&plain).unwrap(), plain.to_vec());
        // A character key alone would type: refused, saying what to send.
        let err = keystrokes(&[key("h")]).unwrap_err();
        assert_eq!(err.code, uidrive_core::ErrorCode::Unsupported);
        assert!(err.message.contains("input.events[0]"), "{}", err.message);
        assert!(
            err.suggestion.contains("\"text\": \"h\""),
            "{}",
            err.suggestion
        );
        assert!(keystrokes(&[key("h"), text("x")]).is_err());
        assert!(keystrokes(&[InputEvent::KeyDown { key: chord("q") }]).is_err());
    }

    #[test]
    fn wheel_deltas_become_whole_clicks() {
        assert_eq!(wheel_clicks(0.0), 0);
        assert_eq!(wheel_clicks(10.0), 1);
        assert_eq!(wheel_clicks(-250.0), 3);
        assert_eq!(wheel_clicks(300.0), 3);
    }
}
