//! The clipboard: the X selections CLIPBOARD and PRIMARY, read and held by
//! uidrive itself (ICCCM), with no `xclip` process.
//!
//! A [`Clipboard`] has a connection and a small unmapped window of its own,
//! and a thread that answers the other apps' requests for what it holds
//! (`SelectionRequest`: `TARGETS`, `TIMESTAMP`, `UTF8_STRING`, `STRING`,
//! `TEXT`, `text/plain;charset=utf-8`, `text/plain`), large values in
//! pieces (`INCR`). It holds a value until another app takes the selection
//! (`SelectionClear`) or the clipboard is cleared or dropped. Reading asks
//! the owner to convert the selection onto uidrive's window, as any app
//! pasting does, and reads `INCR` transfers too.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _,
    CreateWindowAux, EventMask, PropMode, Property, SelectionNotifyEvent, SelectionRequestEvent,
    Window, WindowClass, SELECTION_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use uidrive_core::{Error, Result};

use crate::x11::x_error;

/// Which selection: the clipboard (Ctrl+C / Ctrl+V) or the primary
/// selection (what is selected; pasted with the middle button).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    Clipboard,
    Primary,
}

impl Selection {
    /// `Primary` when `primary`, else `Clipboard`.
    pub fn of(primary: bool) -> Selection {
        if primary {
            Selection::Primary
        } else {
            Selection::Clipboard
        }
    }

    /// Its X name: `CLIPBOARD` or `PRIMARY`.
    pub fn name(self) -> &'static str {
        match self {
            Selection::Clipboard => "CLIPBOARD",
            Selection::Primary => "PRIMARY",
        }
    }
}

/// Values above this go out in pieces of this size (`INCR`), well under
/// any X server's largest request.
const INCR_CHUNK: usize = 64 * 1024;

/// How long a reading waits for the owner's answer by default.
pub const CLIPBOARD_TIMEOUT: Duration = Duration::from_secs(5);

struct Atoms {
    clipboard: Atom,
    targets: Atom,
    timestamp: Atom,
    incr: Atom,
    utf8_string: Atom,
    text: Atom,
    text_plain_utf8: Atom,
    text_plain: Atom,
    image_png: Atom,
    /// Where owners put what uidrive asks for.
    property: Atom,
    /// Where uidrive reads the server's time.
    stamp: Atom,
    /// Ends the thread.
    stop: Atom,
}

/// A value uidrive holds: its bytes (UTF-8 text) and when it took the selection.
struct Held {
    text: Arc<Vec<u8>>,
    since: u32,
}

/// A large value going out in pieces to one requestor's property.
struct Outgoing {
    requestor: Window,
    property: Atom,
    kind: Atom,
    data: Arc<Vec<u8>>,
    sent: usize,
}

#[derive(Default)]
struct State {
    clipboard: Option<Held>,
    primary: Option<Held>,
    outgoing: Vec<Outgoing>,
}

impl State {
    fn held(&mut self, selection: Selection) -> &mut Option<Held> {
        match selection {
            Selection::Clipboard => &mut self.clipboard,
            Selection::Primary => &mut self.primary,
        }
    }
}

struct Shared {
    conn: RustConnection,
    window: Window,
    atoms: Atoms,
    state: Mutex<State>,
    /// The events a reading waits for (`SelectionNotify`, `PropertyNotify`
    /// on uidrive's window), passed on by the thread; locked by the one
    /// operation under way, so operations take turns.
    events: Mutex<Receiver<Event>>,
    running: AtomicBool,
}

/// The clipboard of one display. Dropping it gives up what it holds (apps
/// can no longer paste it) and ends its thread.
pub struct Clipboard {
    shared: Arc<Shared>,
    display: String,
}

impl std::fmt::Debug for Clipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clipboard")
            .field("display", &self.display)
            .finish()
    }
}

impl Clipboard {
    /// Connects to `display` (with the cookie of `xauthority`, if given)
    /// and starts the thread that serves what it holds.
    pub fn connect(display: &str, xauthority: Option<&std::path::Path>) -> Result<Clipboard> {
        let (conn, screen) = crate::auth::connect(display, xauthority).map_err(|e| {
            Error::disconnected(format!("cannot open the display {display}: {e}"))
                .with_suggestion("check DISPLAY (and XAUTHORITY), or start a headless desktop")
        })?;
        let root = conn.setup().roots[screen].root;
        let window = conn
            .generate_id()
            .map_err(|e| x_error("making the clipboard's window", e))?;
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            window,
            root,
            -10,
            -10,
            1,
            1,
            0,
            WindowClass::INPUT_OUTPUT,
            x11rb::COPY_FROM_PARENT,
            &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )
        .map_err(|e| x_error("making the clipboard's window", e))?;
        let atoms = intern(&conn)?;
        crate::x11::sync(&conn)?;
        let (sender, receiver) = mpsc::channel();
        let shared = Arc::new(Shared {
            conn,
            window,
            atoms,
            state: Mutex::default(),
            events: Mutex::new(receiver),
            running: AtomicBool::new(true),
        });
        let thread = shared.clone();
        std::thread::Builder::new()
            .name("uidrive-clipboard".into())
            .spawn(move || serve(&thread, &sender))
            .map_err(|e| Error::failed(format!("cannot start the clipboard's thread: {e}")))?;
        Ok(Clipboard {
            shared,
            display: display.to_string(),
        })
    }

    /// The display whose selections these are.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Takes `selection` and holds `text` in it until another app takes it,
    /// [`Clipboard::clear`] or the clipboard is dropped; apps pasting get it
    /// from uidrive.
    pub fn set(&self, selection: Selection, text: &str) -> Result<()> {
        let events = self.turn()?;
        let shared = &self.shared;
        let since = shared.server_time(&events)?;
        let atom = shared.selection_atom(selection);
        shared.lock_state().held(selection).replace(Held {
            text: Arc::new(text.as_bytes().to_vec()),
            since,
        });
        let conn = &shared.conn;
        let taken = conn
            .set_selection_owner(shared.window, atom, since)
            .map_err(|e| x_error("taking the selection", e))
            .and_then(|_| {
                conn.get_selection_owner(atom)
                    .map_err(|e| x_error("taking the selection", e))?
                    .reply()
                    .map_err(|e| x_error("taking the selection", e))
            });
        match taken {
            Ok(owner) if owner.owner == shared.window => Ok(()),
            Ok(_) => {
                shared.lock_state().held(selection).take();
                Err(Error::failed(format!(
                    "the X server did not give uidrive the {} selection",
                    selection.name()
                ))
                .with_suggestion("try again: another app took it at the same moment"))
            }
            Err(e) => {
                shared.lock_state().held(selection).take();
                Err(e)
            }
        }
    }

    /// Empties `selection`: no app holds a value in it after (the one that
    /// did is told it lost it, as when another app copies).
    pub fn clear(&self, selection: Selection) -> Result<()> {
        let events = self.turn()?;
        let shared = &self.shared;
        let time = shared.server_time(&events)?;
        shared.lock_state().held(selection).take();
        let atom = shared.selection_atom(selection);
        let conn = &shared.conn;
        conn.set_selection_owner(x11rb::NONE, atom, time)
            .map_err(|e| x_error("clearing the selection", e))?;
        let owner = conn
            .get_selection_owner(atom)
            .map_err(|e| x_error("clearing the selection", e))?
            .reply()
            .map_err(|e| x_error("clearing the selection", e))?
            .owner;
        if owner != x11rb::NONE {
            return Err(Error::failed(format!(
                "the {} selection is still held by X window {owner:#x}",
                selection.name()
            ))
            .with_suggestion("try again: an app took it at the same moment"));
        }
        Ok(())
    }

    /// The text in `selection` (`None`: empty, or the app holding it
    /// offers no text), asked of whichever app holds it, waiting up to
    /// `timeout` for its answer.
    pub fn get(&self, selection: Selection, timeout: Duration) -> Result<Option<String>> {
        let events = self.turn()?;
        let shared = &self.shared;
        let atom = shared.selection_atom(selection);
        let owner = shared.owner(atom)?;
        if owner == x11rb::NONE {
            return Ok(None);
        }
        if owner == shared.window {
            if let Some(held) = shared.lock_state().held(selection).as_ref() {
                return Ok(Some(String::from_utf8_lossy(&held.text).into_owned()));
            }
        }
        let deadline = Instant::now() + timeout;
        let a = &shared.atoms;
        for target in [a.utf8_string, a.text_plain_utf8, AtomEnum::STRING.into()] {
            if let Some((kind, bytes)) = shared.convert(&events, atom, target, deadline)? {
                let text = if kind == u32::from(AtomEnum::STRING) {
                    bytes.iter().map(|b| char::from(*b)).collect()
                } else {
                    String::from_utf8_lossy(&bytes).into_owned()
                };
                return Ok(Some(text));
            }
        }
        Ok(None)
    }

    /// What the app holding `selection` offers it as (`TARGETS`: MIME types
    /// and X names as `UTF8_STRING`); empty when no app holds it.
    pub fn targets(&self, selection: Selection, timeout: Duration) -> Result<Vec<String>> {
        let events = self.turn()?;
        let shared = &self.shared;
        let atom = shared.selection_atom(selection);
        if shared.owner(atom)? == x11rb::NONE {
            return Ok(Vec::new());
        }
        let deadline = Instant::now() + timeout;
        let Some((_, bytes)) = shared.convert(&events, atom, shared.atoms.targets, deadline)?
        else {
            return Ok(Vec::new());
        };
        let mut names = Vec::new();
        for chunk in bytes.chunks_exact(4) {
            let atom = u32::from_ne_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if let Ok(Ok(reply)) = shared.conn.get_atom_name(atom).map(|c| c.reply()) {
                names.push(String::from_utf8_lossy(&reply.name).into_owned());
            }
        }
        Ok(names)
    }

    /// The image in `selection` as PNG, when the app holding it offers
    /// `image/png` (`None` otherwise).
    pub fn get_png(&self, selection: Selection, timeout: Duration) -> Result<Option<Vec<u8>>> {
        let offered = self.targets(selection, timeout)?;
        if !offered.iter().any(|t| t == "image/png") {
            return Ok(None);
        }
        let events = self.turn()?;
        let shared = &self.shared;
        let atom = shared.selection_atom(selection);
        let deadline = Instant::now() + timeout;
        Ok(shared
            .convert(&events, atom, shared.atoms.image_png, deadline)?
            .map(|(_, bytes)| bytes))
    }

    /// Whether uidrive holds `selection` now (no app took it since).
    pub fn holds(&self, selection: Selection) -> bool {
        let shared = &self.shared;
        shared.lock_state().held(selection).is_some()
            && shared
                .owner(shared.selection_atom(selection))
                .is_ok_and(|o| o == shared.window)
    }

    /// This operation's turn: the events of earlier ones are dropped.
    fn turn(&self) -> Result<MutexGuard<'_, Receiver<Event>>> {
        if !self.shared.running.load(Ordering::Acquire) {
            return Err(Error::disconnected(format!(
                "the clipboard's connection to {} has ended",
                self.display
            ))
            .with_suggestion("check that the X server (Xvfb) is still running"));
        }
        let events = self.shared.events.lock().unwrap_or_else(|p| p.into_inner());
        while events.try_recv().is_ok() {}
        Ok(events)
    }
}

impl Drop for Clipboard {
    fn drop(&mut self) {
        // Wake the thread with a message to its own window: it ends and the
        // window (with the selections it owns) goes with the connection.
        let shared = &self.shared;
        let event = ClientMessageEvent::new(32, shared.window, shared.atoms.stop, [0u32; 5]);
        let _ = shared
            .conn
            .send_event(false, shared.window, EventMask::NO_EVENT, event);
        let _ = shared.conn.flush();
    }
}

impl Shared {
    fn lock_state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn selection_atom(&self, selection: Selection) -> Atom {
        match selection {
            Selection::Clipboard => self.atoms.clipboard,
            Selection::Primary => AtomEnum::PRIMARY.into(),
        }
    }

    fn owner(&self, atom: Atom) -> Result<Window> {
        Ok(self
            .conn
            .get_selection_owner(atom)
            .map_err(|e| x_error("asking who holds the selection", e))?
            .reply()
            .map_err(|e| x_error("asking who holds the selection", e))?
            .owner)
    }

    /// The server's time now (ICCCM: selections are taken with a real
    /// timestamp, not `CurrentTime`): a zero-length append to a property
    /// of uidrive's window, whose `PropertyNotify` carries it.
    fn server_time(&self, events: &Receiver<Event>) -> Result<u32> {
        self.conn
            .change_property8(
                PropMode::APPEND,
                self.window,
                self.atoms.stamp,
                AtomEnum::STRING,
                &[],
            )
            .map_err(|e| x_error("reading the X server's time", e))?;
        self.conn
            .flush()
            .map_err(|e| x_error("reading the X server's time", e))?;
        let deadline = Instant::now() + CLIPBOARD_TIMEOUT;
        loop {
            match next(events, deadline, "the X server's time")? {
                Event::PropertyNotify(e) if e.atom == self.atoms.stamp => return Ok(e.time),
                _ => continue,
            }
        }
    }

    /// Asks the owner of `selection` for it as `target` onto uidrive's
    /// window and reads the answer (in pieces when it sends `INCR`);
    /// `None` when the owner refuses that target.
    fn convert(
        &self,
        events: &Receiver<Event>,
        selection: Atom,
        target: Atom,
        deadline: Instant,
    ) -> Result<Option<(Atom, Vec<u8>)>> {
        let a = &self.atoms;
        let conn = &self.conn;
        let fail = |e: x11rb::errors::ConnectionError| x_error("reading the selection", e);
        // Nothing left from an earlier reading.
        conn.delete_property(self.window, a.property)
            .map_err(fail)?;
        conn.convert_selection(
            self.window,
            selection,
            target,
            a.property,
            x11rb::CURRENT_TIME,
        )
        .map_err(fail)?;
        conn.flush().map_err(fail)?;
        loop {
            match next(events, deadline, "the app holding the selection to answer")? {
                Event::SelectionNotify(e) if e.selection == selection && e.target == target => {
                    if e.property == x11rb::NONE {
                        return Ok(None);
                    }
                    break;
                }
                _ => continue,
            }
        }
        let (kind, first) = self.take_property()?;
        if kind != a.incr {
            return Ok(Some((kind, first)));
        }
        // INCR: each piece comes as a new value of the property, which
        // uidrive deletes to ask for the next; an empty one ends it.
        let mut data = Vec::new();
        let mut kind_seen = None;
        loop {
            match next(events, deadline, "the next piece of the selection")? {
                Event::PropertyNotify(e)
                    if e.atom == a.property && e.state == Property::NEW_VALUE =>
                {
                    let (kind, piece) = self.take_property()?;
                    if piece.is_empty() {
                        return Ok(Some((kind_seen.unwrap_or(kind), data)));
                    }
                    kind_seen.get_or_insert(kind);
                    data.extend_from_slice(&piece);
                }
                _ => continue,
            }
        }
    }

    /// Reads and deletes uidrive's property: its type and bytes.
    fn take_property(&self) -> Result<(Atom, Vec<u8>)> {
        let reply = self
            .conn
            .get_property(
                true,
                self.window,
                self.atoms.property,
                AtomEnum::ANY,
                0,
                u32::MAX / 4,
            )
            .map_err(|e| x_error("reading the selection", e))?
            .reply()
            .map_err(|e| x_error("reading the selection", e))?;
        Ok((reply.type_, reply.value))
    }
}

fn next(events: &Receiver<Event>, deadline: Instant, what: &str) -> Result<Event> {
    let left = deadline.saturating_duration_since(Instant::now());
    match events.recv_timeout(left) {
        Ok(event) => Ok(event),
        Err(RecvTimeoutError::Timeout) => Err(Error::timeout(format!(
            "waited {} ms for {what}",
            left.as_millis()
        ))
        .with_suggestion("the app holding the selection may be busy or hung; try again")),
        Err(RecvTimeoutError::Disconnected) => Err(Error::disconnected(
            "the clipboard's connection to the X server has ended",
        )
        .with_suggestion("check that the X server (Xvfb) is still running")),
    }
}

fn intern(conn: &RustConnection) -> Result<Atoms> {
    let names = [
        "CLIPBOARD",
        "TARGETS",
        "TIMESTAMP",
        "INCR",
        "UTF8_STRING",
        "TEXT",
        "text/plain;charset=utf-8",
        "text/plain",
        "image/png",
        "_UIDRIVE_SELECTION",
        "_UIDRIVE_TIMESTAMP",
        "_UIDRIVE_STOP",
    ];
    let cookies = names
        .iter()
        .map(|n| conn.intern_atom(false, n.as_bytes()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| x_error("naming the clipboard's atoms", e))?;
    let mut atoms = Vec::with_capacity(names.len());
    for cookie in cookies {
        atoms.push(
            cookie
                .reply()
                .map_err(|e| x_error("naming the clipboard's atoms", e))?
                .atom,
        );
    }
    Ok(Atoms {
        clipboard: atoms[0],
        targets: atoms[1],
        timestamp: atoms[2],
        incr: atoms[3],
        utf8_string: atoms[4],
        text: atoms[5],
        text_plain_utf8: atoms[6],
        text_plain: atoms[7],
        image_png: atoms[8],
        property: atoms[9],
        stamp: atoms[10],
        stop: atoms[11],
    })
}

/// The thread: answers requests for what uidrive holds, notes when an app
/// takes a selection from it, and passes readings' events on.
fn serve(shared: &Shared, events: &Sender<Event>) {
    let conn = &shared.conn;
    while let Ok(event) = conn.wait_for_event() {
        match event {
            Event::ClientMessage(e)
                if e.window == shared.window && e.type_ == shared.atoms.stop =>
            {
                break
            }
            Event::SelectionRequest(e) => {
                answer(shared, &e);
                let _ = conn.flush();
            }
            Event::SelectionClear(e) if e.owner == shared.window => {
                let mut state = shared.lock_state();
                for selection in [Selection::Clipboard, Selection::Primary] {
                    if shared.selection_atom(selection) == e.selection {
                        state.held(selection).take();
                    }
                }
            }
            Event::PropertyNotify(e)
                if e.window != shared.window && e.state == Property::DELETE =>
            {
                next_piece(shared, e.window, e.atom);
                let _ = conn.flush();
            }
            Event::PropertyNotify(e) if e.window != shared.window => {}
            Event::SelectionNotify(_) | Event::PropertyNotify(_) => {
                let _ = events.send(event);
            }
            _ => {}
        }
    }
    shared.running.store(false, Ordering::Release);
    let _ = conn.destroy_window(shared.window);
    let _ = conn.flush();
}

/// Answers one app's request for a selection uidrive holds (ICCCM 2.2).
fn answer(shared: &Shared, e: &SelectionRequestEvent) {
    let a = &shared.atoms;
    let conn = &shared.conn;
    // Obsolete clients name no property: the target is the property then.
    let property = if e.property == x11rb::NONE {
        e.target
    } else {
        e.property
    };
    let selection = [Selection::Clipboard, Selection::Primary]
        .into_iter()
        .find(|s| shared.selection_atom(*s) == e.selection);
    let held = selection.and_then(|s| {
        let mut state = shared.lock_state();
        state
            .held(s)
            .as_ref()
            .filter(|h| e.time == x11rb::CURRENT_TIME || e.time >= h.since)
            .map(|h| (h.text.clone(), h.since))
    });
    let written = match held {
        None => false,
        Some((text, since)) => {
            let target = e.target;
            if target == a.targets {
                let offered = [
                    a.targets,
                    a.timestamp,
                    a.utf8_string,
                    a.text_plain_utf8,
                    a.text,
                    AtomEnum::STRING.into(),
                    a.text_plain,
                ];
                conn.change_property32(
                    PropMode::REPLACE,
                    e.requestor,
                    property,
                    AtomEnum::ATOM,
                    &offered,
                )
                .is_ok()
            } else if target == a.timestamp {
                conn.change_property32(
                    PropMode::REPLACE,
                    e.requestor,
                    property,
                    AtomEnum::INTEGER,
                    &[since],
                )
                .is_ok()
            } else if target == a.utf8_string || target == a.text {
                send(shared, e.requestor, property, a.utf8_string, text)
            } else if target == a.text_plain_utf8 {
                send(shared, e.requestor, property, a.text_plain_utf8, text)
            } else if target == u32::from(AtomEnum::STRING) || target == a.text_plain {
                // Latin-1: what cannot be said in it becomes `?`.
                let latin1: Vec<u8> = String::from_utf8_lossy(&text)
                    .chars()
                    .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                    .collect();
                send(shared, e.requestor, property, target, Arc::new(latin1))
            } else {
                // MULTIPLE and the rest are refused: no app pasting text needs them.
                false
            }
        }
    };
    let notify = SelectionNotifyEvent {
        response_type: SELECTION_NOTIFY_EVENT,
        sequence: 0,
        time: e.time,
        requestor: e.requestor,
        selection: e.selection,
        target: e.target,
        property: if written { property } else { x11rb::NONE },
    };
    let _ = conn.send_event(false, e.requestor, EventMask::NO_EVENT, notify);
}

/// Writes `data` to the requestor's property, whole or, when large, as an
/// `INCR` transfer that [`next_piece`] carries on.
fn send(
    shared: &Shared,
    requestor: Window,
    property: Atom,
    kind: Atom,
    data: Arc<Vec<u8>>,
) -> bool {
    let conn = &shared.conn;
    if data.len() <= INCR_CHUNK {
        return conn
            .change_property8(PropMode::REPLACE, requestor, property, kind, &data)
            .is_ok();
    }
    // Told when the requestor deletes the property, to send the next piece.
    let watched = conn.change_window_attributes(
        requestor,
        &ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE),
    );
    let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
    let started = watched.is_ok()
        && conn
            .change_property32(
                PropMode::REPLACE,
                requestor,
                property,
                shared.atoms.incr,
                &[len],
            )
            .is_ok();
    if started {
        let mut state = shared.lock_state();
        state
            .outgoing
            .retain(|o| !(o.requestor == requestor && o.property == property));
        state.outgoing.push(Outgoing {
            requestor,
            property,
            kind,
            data,
            sent: 0,
        });
    }
    started
}

/// The requestor deleted `property`: the next piece of its `INCR`
/// transfer, or the empty one that ends it.
fn next_piece(shared: &Shared, requestor: Window, property: Atom) {
    let conn = &shared.conn;
    let mut state = shared.lock_state();
    let Some(at) = state
        .outgoing
        .iter()
        .position(|o| o.requestor == requestor && o.property == property)
    else {
        return;
    };
    let out = &mut state.outgoing[at];
    let end = (out.sent + INCR_CHUNK).min(out.data.len());
    let piece = &out.data[out.sent..end];
    let _ = conn.change_property8(PropMode::REPLACE, requestor, property, out.kind, piece);
    if piece.is_empty() {
        state.outgoing.remove(at);
        let _ = conn.change_window_attributes(
            requestor,
            &ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT),
        );
    } else {
        out.sent = end;
    }
}
