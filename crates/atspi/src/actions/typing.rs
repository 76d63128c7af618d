//! Text that lands: `setValue` and `insertText` on editable text, checked
//! against what the element reads afterwards (core's `text_check`, the check
//! locators make too), with real typing as the second route when the app
//! answered the accessibility call but kept its text (Firefox's
//! `EditableText` does so for HTML inputs).

use super::{describe, ok_or_failed};
use crate::bus::{IFACE_COMPONENT, IFACE_EDITABLE_TEXT, IFACE_TEXT};
use crate::discovery::TopLevel;
use crate::driver::Inner;
use crate::fetch::read_text;
use crate::lanes;
use crate::tree::Element;
use std::time::{Duration, Instant};
use uidrive_core::protocol::{InputEvent, KeyChord};
use uidrive_core::text_check::{self, clip};
use uidrive_core::{Error, Result};

/// How long a semantic edit may take to show in the element's text before
/// real typing is tried. GTK answers before the call returns; the wait is
/// spent only on an app that did not apply the edit.
const SEMANTIC_LANDS_WITHIN: Duration = Duration::from_millis(600);
/// AT-SPI's role for a password field.
const PASSWORD_TEXT: u32 = 40;
/// How long typed keys may take to show in the element's text.
const TYPING_LANDS_WITHIN: Duration = Duration::from_secs(3);

/// Where the edit goes: the element, its window and how a message names it.
pub struct Target<'a> {
    pub inner: &'a Inner,
    pub element: &'a Element,
    pub window: u64,
    pub top: &'a TopLevel,
}

impl Target<'_> {
    fn obj(&self) -> (&str, &str) {
        let obj = self
            .element
            .raw
            .obj
            .as_ref()
            .expect("read elements have their object");
        (obj.0.as_str(), obj.1.as_str())
    }

    fn is_password(&self) -> bool {
        self.element.raw.role == PASSWORD_TEXT
    }

    /// The element's text now, if it can be read.
    async fn text(&self) -> Option<String> {
        let (dest, path) = self.obj();
        read_text(&self.inner.conn, dest, path, false)
            .await
            .map(|t| t.text)
    }

    /// Reads the text until `wanted` holds or `limit` has passed, letting the
    /// app settle between reads. Answers whether it held, and the last text read.
    async fn wait_for(&self, wanted: &str, limit: Duration) -> (bool, Option<String>) {
        let deadline = Instant::now() + limit;
        loop {
            let now = self.text().await;
            if now.as_deref().is_some_and(|t| self.reads_as(t, wanted)) {
                return (true, now);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return (false, now);
            }
            // The app's events say when it is done with the edit; between
            // reads of an app that already settled, a short pause.
            let _ = self.inner.idle(Some(self.window), left).await;
            tokio::time::sleep(Duration::from_millis(25).min(left)).await;
        }
    }

    /// Whether `text` is what the element should read: core's one check
    /// (a password field shows one mask character per character typed).
    fn reads_as(&self, text: &str, wanted: &str) -> bool {
        text_check::landed(text, text_check::Wanted::Reads(wanted), self.is_password())
    }

    /// Gives the element the keyboard focus, then types `events` into its window.
    async fn type_into(&self, events: Vec<InputEvent>) -> Result<()> {
        let (dest, path) = self.obj();
        // The window first: an X focus change moves the app's own focus.
        send_keys(self.inner, self.top, Vec::new()).await?;
        let _ = lanes::call_done(self.inner, dest, path, IFACE_COMPONENT, "GrabFocus", &()).await;
        // The focus must have reached the field before the keys do.
        let _ = self
            .inner
            .idle(Some(self.window), Duration::from_secs(2))
            .await;
        send_keys(self.inner, self.top, events).await
    }

    fn still_reads(&self, seen: Option<String>) -> String {
        match seen {
            Some(text) => text_check::what_it_reads(&text, self.is_password()),
            None => "nothing that could be read".into(),
        }
    }
}

/// Replaces the element's text with `text`: `SetTextContents`, checked; when
/// the text did not change to it, focus, select all and type; when that did
/// not either, `failed` with what the element reads.
pub async fn set_text(target: &Target<'_>, text: &str) -> Result<()> {
    let (dest, path) = target.obj();
    let inner = target.inner;
    let done = lanes::call_done(
        inner,
        dest,
        path,
        IFACE_EDITABLE_TEXT,
        "SetTextContents",
        &(text,),
    )
    .await?;
    inner.activity.acted(&inner.app.bus, Duration::ZERO);
    let (landed, seen) = if done {
        target.wait_for(text, SEMANTIC_LANDS_WITHIN).await
    } else {
        (false, target.text().await)
    };
    if landed {
        caret_to_end(target, text).await;
        return Ok(());
    }
    let last = if text.is_empty() {
        InputEvent::Key {
            key: chord("Delete"),
        }
    } else {
        InputEvent::Text { text: text.into() }
    };
    let typed = target
        .type_into(vec![
            InputEvent::Key {
                key: chord("CmdOrCtrl+A"),
            },
            last,
        ])
        .await;
    let semantic = if done {
        "after setValue"
    } else {
        "after the app refused setValue"
    };
    if let Err(e) = typed {
        return Err(Error::failed(format!(
            "{} still reads {} {semantic}, and typing could not be tried: {}",
            describe(target.element),
            target.still_reads(seen),
            e.message
        )));
    }
    let (landed, seen) = target.wait_for(text, TYPING_LANDS_WITHIN).await;
    if landed {
        return Ok(());
    }
    Err(Error::failed(format!(
        "{} reads {} {semantic} and after typing `{}`",
        describe(target.element),
        target.still_reads(seen),
        clip(text)
    ))
    .with_suggestion(
        "the field may refuse this text (a filter, a length limit) or not be editable now",
    ))
}

/// Inserts `text` at the caret: `InsertText`, checked; when the text did not
/// change so, the caret is put back and the text typed; when that did not
/// either, `failed` with what the element reads.
pub async fn insert_text(target: &Target<'_>, text: &str) -> Result<()> {
    let (dest, path) = target.obj();
    let inner = target.inner;
    let before = read_text(&inner.conn, dest, path, false).await;
    let (old, caret) = before.map(|t| (Some(t.text), t.caret)).unwrap_or((None, 0));
    let caret = caret.max(0);
    let length = text.len() as i32;
    let done = lanes::call_done(
        inner,
        dest,
        path,
        IFACE_EDITABLE_TEXT,
        "InsertText",
        &(caret, text, length),
    )
    .await?;
    inner.activity.acted(&inner.app.bus, Duration::ZERO);
    // Without the text before, nothing can be checked: trust the app's answer.
    let Some(old) = old else {
        return ok_or_failed(done, &describe(target.element), "insert the text");
    };
    let wanted = spliced(&old, caret as usize, text);
    let (landed, seen) = if done {
        target.wait_for(&wanted, SEMANTIC_LANDS_WITHIN).await
    } else {
        (false, Some(old.clone()))
    };
    if landed {
        return Ok(());
    }
    // Nothing landed when the text is as it was: type it where the caret was.
    // Anything else is an edit of the app's own, which typing would double.
    if seen.as_deref() != Some(old.as_str()) {
        return Err(Error::failed(format!(
            "{} reads {} after insertText of `{}`, where `{}` was expected",
            describe(target.element),
            target.still_reads(seen),
            clip(text),
            clip(&wanted)
        )));
    }
    let _ = lanes::call_done(inner, dest, path, IFACE_TEXT, "SetCaretOffset", &(caret,)).await;
    let semantic = if done {
        "after insertText"
    } else {
        "after the app refused insertText"
    };
    if let Err(e) = target
        .type_into(vec![InputEvent::Text { text: text.into() }])
        .await
    {
        return Err(Error::failed(format!(
            "{} still reads {} {semantic}, and typing could not be tried: {}",
            describe(target.element),
            target.still_reads(seen),
            e.message
        )));
    }
    let (landed, seen) = target.wait_for(&wanted, TYPING_LANDS_WITHIN).await;
    if landed {
        return Ok(());
    }
    Err(Error::failed(format!(
        "{} reads {} {semantic} and after typing `{}`, where `{}` was expected",
        describe(target.element),
        target.still_reads(seen),
        clip(text),
        clip(&wanted)
    )))
}

/// Sends real key (or any) input to the window `top`, giving its X window the
/// focus first (no window manager does so on a bare X server).
pub async fn send_keys(inner: &Inner, top: &TopLevel, events: Vec<InputEvent>) -> Result<()> {
    let display = inner.display()?;
    let placed = display.place(inner, top)?;
    display.focus(&placed)?;
    display.send_input(&placed, &events, false)?;
    inner
        .activity
        .acted(&inner.app.bus, Duration::from_millis(20));
    Ok(())
}

/// Leaves the caret after the new text, where a person's typing would leave
/// it, so that a following insertText appends.
async fn caret_to_end(target: &Target<'_>, text: &str) {
    let (dest, path) = target.obj();
    let end = text.chars().count() as i32;
    let _ = lanes::call_done(
        target.inner,
        dest,
        path,
        IFACE_TEXT,
        "SetCaretOffset",
        &(end,),
    )
    .await;
}

/// `old` with `text` inserted at character `at`.
fn spliced(old: &str, at: usize, text: &str) -> String {
    let byte = old.char_indices().nth(at).map_or(old.len(), |(b, _)| b);
    format!("{}{text}{}", &old[..byte], &old[byte..])
}

fn chord(text: &str) -> KeyChord {
    text.parse().expect("a chord written in the code parses")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_spliced_at_a_character_offset() {
        assert_eq!(spliced("héllo", 2, "XY"), "héXYllo");
        assert_eq!(spliced("abc", 3, "d"), "abcd");
        assert_eq!(spliced("abc", 9, "d"), "abcd");
        assert_eq!(spliced("", 0, "d"), "d");
    }
}
