//! W3C actions (key, pointer, wheel, pause) as the protocol's input events.
//!
//! Sources are taken tick by tick, each tick's actions in the order of the
//! sources. The events of the ticks between two pauses go to the app in one
//! `input` request that holds what it leaves down (`hold`), so keys and
//! buttons stay down across requests as WebDriver says, until a later up or
//! release actions. A pointer move with a `duration` glides: its intermediate
//! moves are spread over the duration, one request each, as a hand drags
//! (toolkits see a drag, not a jump); a pause of a tick waits that long, and a
//! tick lasts as long as its longest action.
//!
//! Keys: a character typed with no Ctrl, Alt or Meta held is sent as text
//! (the driver types it whatever the keyboard layout); a character with one
//! of them held, and WebDriver's named keys (`\u{E007}` Enter, ...), are
//! pressed and released as keys.

use serde_json::Value;
use std::time::Duration;
use uidrive_core::protocol::{
    InputEvent, Key, KeyChord, Modifier, MouseButton, NamedKey, PointerButton,
};

use crate::wire::WdError;

/// The W3C element reference key.
pub const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// What input a session has left down, and where its pointer is.
#[derive(Debug, Default, Clone)]
pub struct InputState {
    /// The pointer, relative to the window's content.
    pub x: f64,
    /// The pointer, relative to the window's content.
    pub y: f64,
    /// Keys down, as pressed.
    pub keys: Vec<KeyChord>,
    /// Buttons down.
    pub buttons: Vec<MouseButton>,
    /// Characters whose keyDown was typed as text: their keyUp sends nothing.
    pub typed: Vec<char>,
}

/// One `input` request's events and the pause after it.
#[derive(Debug, Default)]
pub struct Chunk {
    /// The events, in order.
    pub events: Vec<InputEvent>,
    /// How long to wait after them.
    pub pause: Duration,
}

/// A pointer move played out over its duration.
struct Glide {
    from: (f64, f64),
    to: (f64, f64),
    took: Duration,
}

/// How often a gliding pointer moves (about a frame at 60 Hz).
const GLIDE_STEP: Duration = Duration::from_millis(16);
/// The most moves one glide makes, however long it lasts.
const MAX_STEPS: u128 = 120;

/// The key WebDriver's code point stands for, when it is one of its named keys.
fn named(c: char) -> Option<Key> {
    let n = match c as u32 {
        0xE001 => return Some(Key::Named(NamedKey::Escape)), // Cancel
        0xE003 => NamedKey::Backspace,
        0xE004 => NamedKey::Tab,
        0xE006 | 0xE007 => NamedKey::Enter,
        0xE008 | 0xE050 => NamedKey::Shift,
        0xE009 | 0xE051 => NamedKey::Ctrl,
        0xE00A | 0xE052 => NamedKey::Alt,
        0xE00C => NamedKey::Escape,
        0xE00D => NamedKey::Space,
        0xE00E | 0xE054 => NamedKey::PageUp,
        0xE00F | 0xE055 => NamedKey::PageDown,
        0xE010 | 0xE056 => NamedKey::End,
        0xE011 | 0xE057 => NamedKey::Home,
        0xE012 | 0xE058 => NamedKey::Left,
        0xE013 | 0xE059 => NamedKey::Up,
        0xE014 | 0xE05A => NamedKey::Right,
        0xE015 | 0xE05B => NamedKey::Down,
        0xE016 | 0xE05C => NamedKey::Insert,
        0xE017 | 0xE05D => NamedKey::Delete,
        0xE03D | 0xE053 => NamedKey::Super,
        0xE031..=0xE03C => {
            NamedKey::ALL[NamedKey::ALL
                .iter()
                .position(|k| *k == NamedKey::F1)
                .expect("F1 is a named key")
                + (c as usize - 0xE031)]
        }
        // Numpad keys type their character.
        0xE01A..=0xE023 => return char::from_digit(c as u32 - 0xE01A, 10).map(Key::Char),
        0xE018 => return Some(Key::Char(';')),
        0xE019 => return Some(Key::Char('=')),
        0xE024 => return Some(Key::Char('*')),
        0xE025 => return Some(Key::Char('+')),
        0xE026 => return Some(Key::Char(',')),
        0xE027 => return Some(Key::Char('-')),
        0xE028 => return Some(Key::Char('.')),
        0xE029 => return Some(Key::Char('/')),
        _ => return None,
    };
    Some(Key::Named(n))
}

/// Whether `c` is in WebDriver's range of named keys.
pub fn is_named(c: char) -> bool {
    ('\u{E000}'..='\u{F8FF}').contains(&c)
}

/// The key of a WebDriver key value (one code point).
pub fn key_of(c: char) -> Result<Key, WdError> {
    if is_named(c) {
        named(c).ok_or_else(|| {
            WdError::invalid_argument(format!(
                "the WebDriver key U+{:04X} has no key on this platform",
                c as u32
            ))
        })
    } else {
        Ok(Key::Char(c))
    }
}

fn is_modifier(key: &Key) -> bool {
    matches!(
        key,
        Key::Named(NamedKey::Shift | NamedKey::Ctrl | NamedKey::Alt | NamedKey::Super)
    )
}

fn button_of(action: &Value) -> Result<MouseButton, WdError> {
    match action.get("button").and_then(Value::as_u64).unwrap_or(0) {
        0 => Ok(MouseButton::Left),
        1 => Ok(MouseButton::Middle),
        2 => Ok(MouseButton::Right),
        other => Err(WdError::invalid_argument(format!(
            "pointer button {other}: this platform has buttons 0 (left), 1 (middle) and 2 (right)"
        ))),
    }
}

fn number(action: &Value, name: &str) -> Result<f64, WdError> {
    match action.get(name) {
        None | Some(Value::Null) => Ok(0.0),
        Some(v) => v
            .as_f64()
            .filter(|n| n.is_finite())
            .ok_or_else(|| WdError::invalid_argument(format!("`{name}` must be a number"))),
    }
}

fn duration(action: &Value) -> Result<Duration, WdError> {
    match action.get("duration") {
        None | Some(Value::Null) => Ok(Duration::ZERO),
        Some(v) => v
            .as_u64()
            .map(Duration::from_millis)
            .map(|d| d.min(uidrive_facade::time::MAX))
            .ok_or_else(|| {
                WdError::invalid_argument("`duration` must be a whole number of milliseconds")
            }),
    }
}

fn modifiers(state: &InputState) -> Vec<Modifier> {
    state
        .keys
        .iter()
        .filter_map(|k| match k.key {
            Key::Named(NamedKey::Shift) => Some(Modifier::Shift),
            Key::Named(NamedKey::Ctrl) => Some(Modifier::Ctrl),
            Key::Named(NamedKey::Alt) => Some(Modifier::Alt),
            Key::Named(NamedKey::Super) => Some(Modifier::Super),
            _ => None,
        })
        .collect()
}

/// Where an element (by its WebDriver id) has its centre.
pub type Center<'a> = dyn FnMut(&str) -> Result<(f64, f64), WdError> + 'a;

/// The input requests for a W3C `actions` body. `center` answers where an
/// element (by its WebDriver id) has its centre, for moves from an element.
pub fn plan(
    body: &Value,
    state: &mut InputState,
    center: &mut Center<'_>,
) -> Result<Vec<Chunk>, WdError> {
    let sources = body
        .get("actions")
        .and_then(Value::as_array)
        .ok_or_else(|| WdError::invalid_argument("the body needs an array `actions`"))?;
    let mut lists = Vec::new();
    for source in sources {
        let kind = source.get("type").and_then(Value::as_str).unwrap_or("");
        if !matches!(kind, "key" | "pointer" | "wheel" | "none") {
            return Err(WdError::invalid_argument(format!(
                "an input source's type is key, pointer, wheel or none, not `{kind}`"
            )));
        }
        if kind == "pointer" {
            let pointer = source
                .pointer("/parameters/pointerType")
                .and_then(Value::as_str)
                .unwrap_or("mouse");
            if pointer != "mouse" {
                return Err(WdError::unsupported(format!(
                    "a {pointer} pointer: uidrive's pointer is the mouse"
                )));
            }
        }
        let actions = source
            .get("actions")
            .and_then(Value::as_array)
            .ok_or_else(|| WdError::invalid_argument("an input source needs an array `actions`"))?;
        lists.push((kind, actions));
    }
    let ticks = lists.iter().map(|(_, a)| a.len()).max().unwrap_or(0);
    let mut chunks = vec![Chunk::default()];
    for tick in 0..ticks {
        let mut pause = Duration::ZERO;
        let mut glide: Option<Glide> = None;
        for (kind, actions) in &lists {
            let Some(action) = actions.get(tick) else {
                continue;
            };
            let events = &mut chunks.last_mut().expect("one chunk at least").events;
            let what = action.get("type").and_then(Value::as_str).unwrap_or("");
            match (*kind, what) {
                (_, "pause") => pause = pause.max(duration(action)?),
                ("key", "keyDown" | "keyUp") => {
                    let value = action.get("value").and_then(Value::as_str).unwrap_or("");
                    let mut chars = value.chars();
                    let (Some(c), None) = (chars.next(), chars.next()) else {
                        return Err(WdError::invalid_argument(format!(
                            "a key action's value is one character, not `{value}`"
                        )));
                    };
                    let key = key_of(c)?;
                    key_event(what == "keyDown", c, key, state, events);
                }
                ("pointer", "pointerMove") => {
                    let (x, y) = (number(action, "x")?, number(action, "y")?);
                    let (x, y) = match action.get("origin") {
                        None | Some(Value::Null) => (x, y),
                        Some(Value::String(s)) if s == "viewport" => (x, y),
                        Some(Value::String(s)) if s == "pointer" => (state.x + x, state.y + y),
                        Some(Value::Object(o)) => {
                            let id =
                                o.get(ELEMENT_KEY).and_then(Value::as_str).ok_or_else(|| {
                                    WdError::invalid_argument(
                                        "an origin is viewport, pointer or an element",
                                    )
                                })?;
                            let (cx, cy) = center(id)?;
                            (cx + x, cy + y)
                        }
                        Some(other) => {
                            return Err(WdError::invalid_argument(format!(
                                "an origin is viewport, pointer or an element, not {other}"
                            )))
                        }
                    };
                    let took = duration(action)?;
                    if took.is_zero() {
                        events.push(InputEvent::PointerMove {
                            x,
                            y,
                            mods: modifiers(state),
                        });
                    } else {
                        glide = Some(Glide {
                            from: (state.x, state.y),
                            to: (x, y),
                            took,
                        });
                    }
                    state.x = x;
                    state.y = y;
                }
                ("pointer", "pointerDown" | "pointerUp") => {
                    let button = button_of(action)?;
                    let mut at = PointerButton::at(state.x, state.y);
                    at.button = Some(button);
                    at.mods = modifiers(state);
                    if what == "pointerDown" {
                        state.buttons.push(button);
                        events.push(InputEvent::PointerDown(at));
                    } else {
                        state.buttons.retain(|b| *b != button);
                        events.push(InputEvent::PointerUp(at));
                    }
                }
                ("pointer", "pointerCancel") => {}
                ("wheel", "scroll") => {
                    let (mut x, mut y) = (number(action, "x")?, number(action, "y")?);
                    if let Some(Value::Object(o)) = action.get("origin") {
                        if let Some(id) = o.get(ELEMENT_KEY).and_then(Value::as_str) {
                            let (cx, cy) = center(id)?;
                            x += cx;
                            y += cy;
                        }
                    }
                    events.push(InputEvent::Wheel {
                        x,
                        y,
                        dx: number(action, "deltaX")?,
                        dy: number(action, "deltaY")?,
                        precise: true,
                        mods: modifiers(state),
                    });
                }
                (kind, what) => {
                    return Err(WdError::invalid_argument(format!(
                        "a {kind} source has no `{what}` action"
                    )))
                }
            }
        }
        if let Some(g) = glide {
            // One step per GLIDE_STEP of the duration (at most MAX_STEPS), the
            // last on the target; the other sources' events of the tick go first.
            let steps = (g.took.as_millis() / GLIDE_STEP.as_millis()).clamp(1, MAX_STEPS) as u32;
            let mods = modifiers(state);
            for step in 1..=steps {
                let t = f64::from(step) / f64::from(steps);
                let chunk = chunks.last_mut().expect("one chunk at least");
                chunk.events.push(InputEvent::PointerMove {
                    x: g.from.0 + (g.to.0 - g.from.0) * t,
                    y: g.from.1 + (g.to.1 - g.from.1) * t,
                    mods: mods.clone(),
                });
                chunk.pause = g.took / steps;
                chunks.push(Chunk::default());
            }
            pause = pause.saturating_sub(g.took);
        }
        if !pause.is_zero() {
            chunks.last_mut().expect("one chunk at least").pause = pause;
            chunks.push(Chunk::default());
        }
    }
    chunks.retain(|c| !c.events.is_empty() || !c.pause.is_zero());
    Ok(chunks)
}

fn key_event(down: bool, c: char, key: Key, state: &mut InputState, events: &mut Vec<InputEvent>) {
    let chord = KeyChord::new(key);
    if is_modifier(&chord.key) || matches!(chord.key, Key::Named(_)) {
        if down {
            state.keys.push(chord.clone());
            events.push(InputEvent::KeyDown { key: chord });
        } else if let Some(at) = state.keys.iter().position(|k| *k == chord) {
            state.keys.remove(at);
            events.push(InputEvent::KeyUp { key: chord });
        }
        return;
    }
    let Key::Char(ch) = chord.key else { return };
    let shortcut = modifiers(state)
        .iter()
        .any(|m| !matches!(m, Modifier::Shift));
    if down {
        if shortcut {
            state.keys.push(chord.clone());
            events.push(InputEvent::KeyDown { key: chord });
        } else {
            let shifted = modifiers(state).contains(&Modifier::Shift);
            let text = if shifted {
                ch.to_uppercase().collect()
            } else {
                ch.to_string()
            };
            state.typed.push(c);
            events.push(InputEvent::Text { text });
        }
    } else if let Some(at) = state.typed.iter().position(|t| *t == c) {
        state.typed.remove(at);
    } else if let Some(at) = state.keys.iter().position(|k| *k == chord) {
        state.keys.remove(at);
        events.push(InputEvent::KeyUp { key: chord });
    }
}

/// The events that release everything `state` has down (release actions).
pub fn release(state: &mut InputState) -> Vec<InputEvent> {
    let mut events = Vec::new();
    for key in state.keys.drain(..).rev() {
        events.push(InputEvent::KeyUp { key });
    }
    for button in state.buttons.drain(..).rev() {
        let mut at = PointerButton::at(state.x, state.y);
        at.button = Some(button);
        events.push(InputEvent::PointerUp(at));
    }
    state.typed.clear();
    events
}

/// Text for send keys, split at WebDriver's named keys: runs of text to
/// type, and keys to press.
pub enum Piece {
    /// Characters to type.
    Text(String),
    /// A key to press (a chord: modifiers given before it are held).
    Key(KeyChord),
}

/// `text` of element send keys, as runs of text and keys. A modifier key
/// holds until the NULL key (U+E000) or the end, as WebDriver says.
pub fn pieces(text: &str) -> Result<Vec<Piece>, WdError> {
    let mut out = Vec::new();
    let mut run = String::new();
    let mut mods: Vec<Modifier> = Vec::new();
    for c in text.chars() {
        if c == '\u{E000}' {
            mods.clear();
            continue;
        }
        let key = if is_named(c) {
            key_of(c)?
        } else {
            Key::Char(c)
        };
        let modifier = match key {
            Key::Named(NamedKey::Shift) => Some(Modifier::Shift),
            Key::Named(NamedKey::Ctrl) => Some(Modifier::Ctrl),
            Key::Named(NamedKey::Alt) => Some(Modifier::Alt),
            Key::Named(NamedKey::Super) => Some(Modifier::Super),
            _ => None,
        };
        if let Some(m) = modifier {
            if !mods.contains(&m) {
                mods.push(m);
            }
            continue;
        }
        match key {
            Key::Char(ch) if mods.iter().all(|m| *m == Modifier::Shift) => {
                if mods.is_empty() {
                    run.push(ch);
                } else {
                    run.extend(ch.to_uppercase());
                }
            }
            key => {
                if !run.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut run)));
                }
                out.push(Piece::Key(KeyChord {
                    mods: mods.clone(),
                    key,
                }));
            }
        }
    }
    if !run.is_empty() {
        out.push(Piece::Text(run));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_text_and_enter_become_text_and_a_key() {
        let body = json!({"actions": [{"type": "key", "id": "k", "actions": [
            {"type": "keyDown", "value": "1"}, {"type": "keyUp", "value": "1"},
            {"type": "pause", "duration": 0},
            {"type": "keyDown", "value": "\u{E007}"}, {"type": "keyUp", "value": "\u{E007}"},
        ]}]});
        let mut state = InputState::default();
        let chunks = plan(&body, &mut state, &mut |_| unreachable!()).unwrap();
        assert_eq!(chunks.len(), 1);
        let enter = KeyChord::new(Key::Named(NamedKey::Enter));
        assert_eq!(
            chunks[0].events,
            vec![
                InputEvent::Text { text: "1".into() },
                InputEvent::KeyDown { key: enter.clone() },
                InputEvent::KeyUp { key: enter },
            ]
        );
        assert!(state.keys.is_empty() && state.typed.is_empty());
    }

    #[test]
    fn a_pointer_moves_from_an_element_and_a_pause_splits_requests() {
        let body = json!({"actions": [{"type": "pointer", "id": "m", "actions": [
            {"type": "pointerMove", "x": 1, "y": 2, "origin": {ELEMENT_KEY: "@e1"}},
            {"type": "pointerDown", "button": 0},
            {"type": "pause", "duration": 10},
            {"type": "pointerUp", "button": 0},
        ]}]});
        let mut state = InputState::default();
        let chunks = plan(&body, &mut state, &mut |id| {
            assert_eq!(id, "@e1");
            Ok((10.0, 20.0))
        })
        .unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].pause, Duration::from_millis(10));
        assert_eq!(chunks[0].events.len(), 2);
        assert_eq!((state.x, state.y), (11.0, 22.0));
        assert!(state.buttons.is_empty());
    }

    #[test]
    fn a_move_with_a_duration_glides_in_steps_over_it() {
        let body = json!({"actions": [{"type": "pointer", "id": "m", "actions": [
            {"type": "pointerMove", "x": 10, "y": 10},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerMove", "x": 100, "y": 10, "duration": 160},
            {"type": "pointerUp", "button": 0},
        ]}]});
        let mut state = InputState::default();
        let chunks = plan(&body, &mut state, &mut |_| unreachable!()).unwrap();
        // The move and the press, then ten steps of 16 ms, then the release.
        assert_eq!(chunks.len(), 11);
        assert_eq!(chunks[0].events.len(), 3);
        let xs: Vec<f64> = chunks
            .iter()
            .flat_map(|c| &c.events)
            .filter_map(|e| match e {
                InputEvent::PointerMove { x, .. } => Some(*x),
                _ => None,
            })
            .collect();
        assert_eq!(xs.len(), 11);
        assert!(xs.windows(2).all(|w| w[1] > w[0]), "{xs:?}");
        assert_eq!(xs[1], 19.0);
        assert_eq!(*xs.last().unwrap(), 100.0);
        let total: Duration = chunks.iter().map(|c| c.pause).sum();
        assert_eq!(total, Duration::from_millis(160));
        assert!(matches!(
            chunks.last().unwrap().events[..],
            [InputEvent::PointerUp(_)]
        ));
    }

    #[test]
    fn send_keys_text_splits_at_named_keys_and_holds_modifiers() {
        let pieces = pieces("ab\u{E009}a\u{E000}c\u{E007}").unwrap();
        assert_eq!(pieces.len(), 4);
        assert!(matches!(&pieces[0], Piece::Text(t) if t == "ab"));
        assert!(matches!(&pieces[1], Piece::Key(k) if k.to_string() == "Ctrl+a"));
        assert!(matches!(&pieces[2], Piece::Text(t) if t == "c"));
        assert!(matches!(&pieces[3], Piece::Key(k) if k.to_string() == "Enter"));
    }
}
