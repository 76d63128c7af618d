//! A connection to a wlroots compositor: real input through its virtual
//! pointer (`zwlr_virtual_pointer_v1`) and virtual keyboard
//! (`zwp_virtual_keyboard_v1`, with a keymap uidrive writes), and captures
//! through `zwlr_screencopy_v1`.

use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uidrive_core::protocol::{Capture, InputEvent, KeyChord, Modifier, MouseButton, PointerButton};
use uidrive_core::{Error, Result};
use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{
    wl_buffer::WlBuffer, wl_output, wl_output::WlOutput, wl_pointer, wl_registry::WlRegistry,
    wl_seat::WlSeat, wl_shm, wl_shm::WlShm, wl_shm_pool::WlShmPool,
};
use wayland_client::{delegate_noop, Connection, Dispatch, EventQueue, QueueHandle, WEnum};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1, zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1,
    zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
};
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use crate::keymap::Keymap;

/// The longest a capture may take before it fails.
const CAPTURE_TIMEOUT: Duration = Duration::from_secs(10);
/// `linux/input-event-codes.h`.
const BTN_LEFT: u32 = 0x110;
const BTN_RIGHT: u32 = 0x111;
const BTN_MIDDLE: u32 = 0x112;
/// What one wheel click scrolls in `wl_pointer.axis` units (libinput's).
const WHEEL_AXIS_PER_CLICK: f64 = 15.0;
/// DIPs scrolled by one wheel click, as on X11.
pub const WHEEL_DIPS_PER_CLICK: f64 = 100.0;

/// The compositor's output (one: the headless desktop has one).
#[derive(Debug, Default, Clone, Copy)]
struct OutputInfo {
    width: i32,
    height: i32,
}

#[derive(Default)]
struct Frame {
    format: Option<(wl_shm::Format, u32, u32, u32)>,
    y_invert: bool,
    ready: bool,
    failed: bool,
}

struct State {
    output: OutputInfo,
    frame: Frame,
}

struct Link {
    conn: Connection,
    queue: EventQueue<State>,
    state: State,
    shm: WlShm,
    wl_output: WlOutput,
    pointer: ZwlrVirtualPointerV1,
    keyboard: ZwpVirtualKeyboardV1,
    screencopy: ZwlrScreencopyManagerV1,
    keymap: Keymap,
    /// Keycodes (evdev) held down now, in the order they went down.
    held_keys: Vec<u32>,
    /// Buttons held down now.
    held_buttons: Vec<u32>,
    /// Modifiers held by keyDown requests.
    held_mods: Vec<Modifier>,
    started: Instant,
}

/// A connection to a Wayland compositor that offers virtual input and screencopy.
pub struct Wayland {
    link: Mutex<Link>,
}

fn wl_error(doing: &str, e: impl std::fmt::Display) -> Error {
    Error::failed(format!("the Wayland compositor failed {doing}: {e}"))
}

impl Wayland {
    /// Connects to the compositor at `display` (`WAYLAND_DISPLAY`: a name in
    /// `runtime_dir`, or an absolute path).
    pub fn connect(display: &str, runtime_dir: Option<&Path>) -> Result<Wayland> {
        let path = match (Path::new(display).is_absolute(), runtime_dir) {
            (true, _) => Path::new(display).to_path_buf(),
            (false, Some(dir)) => dir.join(display),
            (false, None) => {
                return Err(Error::unsupported(format!(
                "the Wayland display {display:?} is a name but no XDG_RUNTIME_DIR says where it is"
            ))
                .with_suggestion("pass the app's XDG_RUNTIME_DIR with its WAYLAND_DISPLAY"))
            }
        };
        let stream = UnixStream::connect(&path).map_err(|e| {
            Error::failed(format!(
                "cannot connect to the Wayland display {}: {e}",
                path.display()
            ))
            .with_suggestion(
                "check that the compositor runs (uidrive's headless Wayland desktop starts one)",
            )
        })?;
        let conn = Connection::from_socket(stream).map_err(|e| wl_error("to connect", e))?;
        let (globals, mut queue) =
            registry_queue_init::<State>(&conn).map_err(|e| wl_error("to list its globals", e))?;
        let qh = queue.handle();
        let missing = |name: &str, e: &dyn std::fmt::Display| {
            Error::unsupported(format!(
                "the Wayland compositor does not offer {name} ({e}), which the Wayland backend needs for input and capture"
            ))
            .with_suggestion("use a wlroots compositor (sway), as uidrive's headless Wayland desktop does")
        };
        let seat: WlSeat = globals
            .bind(&qh, 1..=7, ())
            .map_err(|e| missing("wl_seat", &e))?;
        let shm: WlShm = globals
            .bind(&qh, 1..=1, ())
            .map_err(|e| missing("wl_shm", &e))?;
        let wl_output: WlOutput = globals
            .bind(&qh, 1..=3, ())
            .map_err(|e| missing("wl_output", &e))?;
        let pointers: ZwlrVirtualPointerManagerV1 = globals
            .bind(&qh, 1..=2, ())
            .map_err(|e| missing("zwlr_virtual_pointer_manager_v1", &e))?;
        let keyboards: ZwpVirtualKeyboardManagerV1 = globals
            .bind(&qh, 1..=1, ())
            .map_err(|e| missing("zwp_virtual_keyboard_manager_v1", &e))?;
        let screencopy: ZwlrScreencopyManagerV1 = globals
            .bind(&qh, 1..=1, ())
            .map_err(|e| missing("zwlr_screencopy_manager_v1", &e))?;
        let pointer = pointers.create_virtual_pointer(Some(&seat), &qh, ());
        let keyboard = keyboards.create_virtual_keyboard(&seat, &qh, ());
        let mut state = State {
            output: OutputInfo::default(),
            frame: Frame::default(),
        };
        queue
            .roundtrip(&mut state)
            .map_err(|e| wl_error("to answer", e))?;
        let mut link = Link {
            conn,
            queue,
            state,
            shm,
            wl_output,
            pointer,
            keyboard,
            screencopy,
            keymap: Keymap::default(),
            held_keys: Vec::new(),
            held_buttons: Vec::new(),
            held_mods: Vec::new(),
            started: Instant::now(),
        };
        // A virtual keyboard sends no key before it has a keymap.
        link.upload_keymap()?;
        link.sync()?;
        Ok(Wayland {
            link: Mutex::new(link),
        })
    }

    /// The output's size in pixels.
    pub fn output_size(&self) -> (u32, u32) {
        let link = self.lock();
        (
            link.state.output.width.max(0) as u32,
            link.state.output.height.max(0) as u32,
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Link> {
        self.link.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends `events` as real input; their coordinates count from `origin`
    /// (where the window's content is on the output). Keys and buttons
    /// the events leave down are released at the end unless `hold`.
    pub fn send_input(&self, origin: (f64, f64), events: &[InputEvent], hold: bool) -> Result<()> {
        let mut link = self.lock();
        let keys_before = link.held_keys.clone();
        let buttons_before = link.held_buttons.clone();
        let sent = link
            .prepare_keymap(events)
            .and_then(|()| events.iter().try_for_each(|e| link.event(origin, e)));
        let released = match hold && sent.is_ok() {
            true => Ok(()),
            false => link.release_all_but(&keys_before, &buttons_before),
        };
        sent.and(released).and_then(|()| link.sync())
    }

    /// Captures a rectangle of the output as PNG.
    pub fn capture_rect(&self, x: i32, y: i32, width: u32, height: u32) -> Result<Capture> {
        let mut link = self.lock();
        link.capture(x, y, width, height)
    }
}

impl Link {
    fn now(&self) -> u32 {
        self.started.elapsed().as_millis() as u32
    }

    /// One round trip: the compositor has handled everything sent.
    fn sync(&mut self) -> Result<()> {
        self.queue
            .roundtrip(&mut self.state)
            .map(|_| ())
            .map_err(|e| wl_error("to answer", e))?;
        self.conn
            .flush()
            .map_err(|e| wl_error("to take requests", e))
    }

    fn upload_keymap(&mut self) -> Result<()> {
        let text = self.keymap.text();
        let fd = memfd_with("uidrive-keymap", text.as_bytes())?;
        // XKB_V1 = 1; the size counts the terminating NUL.
        self.keyboard.keymap(1, fd.as_fd(), text.len() as u32 + 1);
        Ok(())
    }

    /// Puts every keysym the events type on a key, writing a new keymap
    /// when one is missing, before any key is sent.
    fn prepare_keymap(&mut self, events: &[InputEvent]) -> Result<()> {
        let mut needed = Vec::new();
        for event in events {
            match event {
                InputEvent::Text { text } => {
                    for c in text.chars() {
                        needed.push(crate::keymap::char_keysym(c)?);
                    }
                }
                InputEvent::Key { key }
                | InputEvent::KeyDown { key }
                | InputEvent::KeyUp { key } => needed.push(crate::keymap::chord_keysym(key)?),
                _ => {}
            }
        }
        if self.keymap.place_all(&needed, &self.held_keys)? {
            self.upload_keymap()?;
        }
        Ok(())
    }

    fn event(&mut self, origin: (f64, f64), event: &InputEvent) -> Result<()> {
        match event {
            InputEvent::PointerMove { x, y, mods } => {
                self.with_mods(mods, |l| l.motion(origin, *x, *y))
            }
            InputEvent::PointerDown(p) => {
                for m in &p.mods {
                    if !self.held_mods.contains(m) {
                        self.held_mods.push(*m);
                    }
                }
                self.send_mods();
                self.motion(origin, p.x, p.y)?;
                let button = button_code(p);
                self.button(button, true);
                if !self.held_buttons.contains(&button) {
                    self.held_buttons.push(button);
                }
                Ok(())
            }
            InputEvent::PointerUp(p) => {
                self.motion(origin, p.x, p.y)?;
                let button = button_code(p);
                self.button(button, false);
                self.held_buttons.retain(|&b| b != button);
                self.held_mods.retain(|m| !p.mods.contains(m));
                self.send_mods();
                Ok(())
            }
            InputEvent::Click(p) => self.with_mods(&p.mods, |l| {
                l.motion(origin, p.x, p.y)?;
                let button = button_code(p);
                for _ in 0..p.clicks().clamp(1, 3) {
                    l.button(button, true);
                    l.button(button, false);
                }
                Ok(())
            }),
            InputEvent::Wheel {
                x, y, dx, dy, mods, ..
            } => self.with_mods(mods, |l| {
                l.motion(origin, *x, *y)?;
                for (delta, axis) in [
                    (*dy, wl_pointer::Axis::VerticalScroll),
                    (*dx, wl_pointer::Axis::HorizontalScroll),
                ] {
                    let step = if delta < 0.0 { -1 } else { 1 };
                    for _ in 0..wheel_clicks(delta) {
                        let time = l.now();
                        l.pointer.axis_source(wl_pointer::AxisSource::Wheel);
                        l.pointer.axis_discrete(
                            time,
                            axis,
                            WHEEL_AXIS_PER_CLICK * f64::from(step),
                            step,
                        );
                        l.pointer.frame();
                    }
                }
                Ok(())
            }),
            InputEvent::KeyDown { key } => {
                for m in &key.mods {
                    if !self.held_mods.contains(m) {
                        self.held_mods.push(*m);
                    }
                }
                self.send_mods();
                let code = self.code_of(key)?;
                if !self.held_keys.contains(&code) {
                    self.key(code, true);
                    self.held_keys.push(code);
                }
                Ok(())
            }
            InputEvent::KeyUp { key } => {
                let code = self.code_of(key)?;
                if self.held_keys.contains(&code) {
                    self.key(code, false);
                    self.held_keys.retain(|&k| k != code);
                }
                self.held_mods.retain(|m| !key.mods.contains(m));
                self.send_mods();
                Ok(())
            }
            InputEvent::Key { key } => {
                let code = self.code_of(key)?;
                self.with_mods(&key.mods, |l| {
                    l.key(code, true);
                    l.key(code, false);
                    Ok(())
                })
            }
            InputEvent::Text { text } => {
                for c in text.chars() {
                    let sym = crate::keymap::char_keysym(c)?;
                    let code = self.keymap.code(sym).ok_or_else(|| lost_key(sym))?;
                    self.key(code, true);
                    self.key(code, false);
                }
                Ok(())
            }
        }
    }

    fn code_of(&self, chord: &KeyChord) -> Result<u32> {
        let sym = crate::keymap::chord_keysym(chord)?;
        self.keymap.code(sym).ok_or_else(|| lost_key(sym))
    }

    /// Runs `f` with `mods` held besides those held already.
    fn with_mods(
        &mut self,
        mods: &[Modifier],
        f: impl FnOnce(&mut Link) -> Result<()>,
    ) -> Result<()> {
        let before = self.held_mods.clone();
        for m in mods {
            if !self.held_mods.contains(m) {
                self.held_mods.push(*m);
            }
        }
        if self.held_mods != before {
            self.send_mods();
        }
        let done = f(self);
        if self.held_mods != before {
            self.held_mods = before;
            self.send_mods();
        }
        done
    }

    /// The modifiers held, as the keymap's real modifiers.
    fn send_mods(&mut self) {
        let mask = self
            .held_mods
            .iter()
            .fold(0, |mask, m| mask | crate::keymap::modifier_mask(*m));
        self.keyboard.modifiers(mask, 0, 0, 0);
    }

    fn key(&mut self, code: u32, down: bool) {
        let time = self.now();
        self.keyboard.key(time, code, u32::from(down));
    }

    fn button(&mut self, button: u32, down: bool) {
        let time = self.now();
        let state = match down {
            true => wl_pointer::ButtonState::Pressed,
            false => wl_pointer::ButtonState::Released,
        };
        self.pointer.button(time, button, state);
        self.pointer.frame();
    }

    fn motion(&mut self, origin: (f64, f64), x: f64, y: f64) -> Result<()> {
        let OutputInfo { width, height } = self.state.output;
        if width <= 0 || height <= 0 {
            return Err(Error::failed(
                "the Wayland compositor has told no output size to move the pointer over",
            ));
        }
        let clamp = |v: f64, max: i32| v.round().clamp(0.0, f64::from(max - 1)) as u32;
        let (ax, ay) = (clamp(origin.0 + x, width), clamp(origin.1 + y, height));
        let time = self.now();
        self.pointer
            .motion_absolute(time, ax, ay, width as u32, height as u32);
        self.pointer.frame();
        Ok(())
    }

    fn release_all_but(&mut self, keys_before: &[u32], buttons_before: &[u32]) -> Result<()> {
        let buttons: Vec<u32> = self
            .held_buttons
            .iter()
            .copied()
            .filter(|b| !buttons_before.contains(b))
            .collect();
        for &b in buttons.iter().rev() {
            self.button(b, false);
            self.held_buttons.retain(|&h| h != b);
        }
        let keys: Vec<u32> = self
            .held_keys
            .iter()
            .copied()
            .filter(|k| !keys_before.contains(k))
            .collect();
        for &k in keys.iter().rev() {
            self.key(k, false);
            self.held_keys.retain(|&h| h != k);
        }
        if keys_before.is_empty() && buttons_before.is_empty() && !self.held_mods.is_empty() {
            self.held_mods.clear();
            self.send_mods();
        }
        Ok(())
    }

    fn capture(&mut self, x: i32, y: i32, width: u32, height: u32) -> Result<Capture> {
        // Only what is on the output is in the picture.
        let OutputInfo {
            width: out_w,
            height: out_h,
        } = self.state.output;
        let (x0, y0) = (x.max(0), y.max(0));
        let x1 = (i64::from(x) + i64::from(width)).min(i64::from(out_w)) as i32;
        let y1 = (i64::from(y) + i64::from(height)).min(i64::from(out_h)) as i32;
        if x1 <= x0 || y1 <= y0 {
            return Err(Error::no_window(format!(
                "the window ({x}, {y}, {width}x{height}) is not on the output ({out_w}x{out_h})"
            )));
        }
        let clipped = (x0, y0, x1 - x0, y1 - y0) != (x, y, width as i32, height as i32);
        let (x, y, width, height) = (x0, y0, (x1 - x0) as u32, (y1 - y0) as u32);
        let qh = self.queue.handle();
        self.state.frame = Frame::default();
        let frame = self.screencopy.capture_output_region(
            0,
            &self.wl_output,
            x,
            y,
            width as i32,
            height as i32,
            &qh,
            (),
        );
        let deadline = Instant::now() + CAPTURE_TIMEOUT;
        let (format, w, h, stride) = loop {
            if let Some(f) = self.state.frame.format {
                break f;
            }
            if self.state.frame.failed {
                frame.destroy();
                return Err(Error::failed("the compositor refused to copy the screen"));
            }
            self.dispatch_until(deadline, "the screencopy buffer's format")?;
        };
        let size = stride as usize * h as usize;
        let fd = memfd_with("uidrive-capture", &vec![0u8; size])?;
        let pool = self.shm.create_pool(fd.as_fd(), size as i32, &qh, ());
        let buffer = pool.create_buffer(0, w as i32, h as i32, stride as i32, format, &qh, ());
        frame.copy(&buffer);
        let done = loop {
            if self.state.frame.ready {
                break Ok(());
            }
            if self.state.frame.failed {
                break Err(Error::failed("the compositor failed to copy the screen"));
            }
            if let Err(e) = self.dispatch_until(deadline, "the screen's copy") {
                break Err(e);
            }
        };
        frame.destroy();
        buffer.destroy();
        pool.destroy();
        done?;
        let bytes = read_fd(&fd, size)?;
        let mut rgb = Vec::with_capacity(w as usize * h as usize * 3);
        for row in 0..h as usize {
            let row = if self.state.frame.y_invert {
                h as usize - 1 - row
            } else {
                row
            };
            let line = &bytes[row * stride as usize..][..w as usize * 4];
            for px in line.chunks_exact(4) {
                // ARGB/XRGB 8888, little-endian: B, G, R, A in memory.
                match format {
                    wl_shm::Format::Abgr8888 | wl_shm::Format::Xbgr8888 => {
                        rgb.extend_from_slice(&[px[0], px[1], px[2]])
                    }
                    _ => rgb.extend_from_slice(&[px[2], px[1], px[0]]),
                }
            }
        }
        let png = uidrive_x11::encode_png(w, h, &rgb)?;
        Ok(Capture {
            png,
            width: w,
            height: h,
            clipped,
            extra: serde_json::Map::new(),
        })
    }

    /// Reads and handles the compositor's events until `deadline`.
    fn dispatch_until(&mut self, deadline: Instant, what: &str) -> Result<()> {
        self.conn
            .flush()
            .map_err(|e| wl_error("to take requests", e))?;
        self.queue
            .dispatch_pending(&mut self.state)
            .map_err(|e| wl_error("to answer", e))?;
        let Some(guard) = self.queue.prepare_read() else {
            return Ok(());
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::timeout(format!(
                "the Wayland compositor did not send {what} within {} ms",
                CAPTURE_TIMEOUT.as_millis()
            )));
        }
        let mut pfd = libc::pollfd {
            fd: std::os::fd::AsRawFd::as_raw_fd(&guard.connection_fd()),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, left.as_millis().min(100) as i32) };
        if n > 0 {
            guard.read().map_err(|e| wl_error("to send events", e))?;
        }
        self.queue
            .dispatch_pending(&mut self.state)
            .map_err(|e| wl_error("to answer", e))?;
        Ok(())
    }
}

fn lost_key(sym: u32) -> Error {
    Error::failed(format!(
        "the keysym 0x{sym:x} is on no key of uidrive's keymap"
    ))
}

fn button_code(p: &PointerButton) -> u32 {
    match p.button() {
        MouseButton::Left => BTN_LEFT,
        MouseButton::Middle => BTN_MIDDLE,
        MouseButton::Right => BTN_RIGHT,
    }
}

/// How many wheel clicks scroll `delta` DIPs (as on X11).
fn wheel_clicks(delta: f64) -> u32 {
    if delta == 0.0 || !delta.is_finite() {
        return 0;
    }
    (delta.abs() / WHEEL_DIPS_PER_CLICK).round().max(1.0) as u32
}

/// An anonymous file holding `bytes` (and a NUL after them).
fn memfd_with(name: &str, bytes: &[u8]) -> Result<OwnedFd> {
    use std::io::Write;
    let cname = std::ffi::CString::new(name).expect("no NUL in the name");
    // SAFETY: a valid C string; the descriptor returned is ours.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(Error::failed(format!(
            "cannot create a shared memory file: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: fd was just created and is owned here alone.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut file = std::fs::File::from(owned);
    file.write_all(bytes)
        .and_then(|()| file.write_all(&[0]))
        .map_err(|e| Error::failed(format!("cannot write a shared memory file: {e}")))?;
    Ok(OwnedFd::from(file))
}

fn read_fd(fd: &OwnedFd, size: usize) -> Result<Vec<u8>> {
    use std::io::{Read, Seek};
    let mut file = std::fs::File::from(
        fd.try_clone()
            .map_err(|e| Error::failed(format!("cannot read the capture: {e}")))?,
    );
    let mut bytes = vec![0u8; size];
    file.seek(std::io::SeekFrom::Start(0))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(|e| Error::failed(format!("cannot read the capture: {e}")))?;
    Ok(bytes)
}

impl Dispatch<WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut Self,
        _: &WlRegistry,
        _: wayland_client::protocol::wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<WlOutput, ()> for State {
    fn event(
        state: &mut Self,
        _: &WlOutput,
        event: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_output::Event::Mode {
            flags: WEnum::Value(flags),
            width,
            height,
            ..
        } = event
        {
            if flags.contains(wl_output::Mode::Current) {
                state.output = OutputInfo { width, height };
            }
        }
    }
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrScreencopyFrameV1,
        event: zwlr_screencopy_frame_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        use zwlr_screencopy_frame_v1::Event;
        match event {
            Event::Buffer {
                format: WEnum::Value(format),
                width,
                height,
                stride,
            } => state.frame.format = Some((format, width, height, stride)),
            Event::Flags {
                flags: WEnum::Value(flags),
            } => state.frame.y_invert = flags.contains(zwlr_screencopy_frame_v1::Flags::YInvert),
            Event::Ready { .. } => state.frame.ready = true,
            Event::Failed => state.frame.failed = true,
            _ => {}
        }
    }
}

delegate_noop!(State: ignore WlSeat);
delegate_noop!(State: ignore WlShm);
delegate_noop!(State: WlShmPool);
delegate_noop!(State: ignore WlBuffer);
delegate_noop!(State: ZwlrVirtualPointerManagerV1);
delegate_noop!(State: ZwlrVirtualPointerV1);
delegate_noop!(State: ZwpVirtualKeyboardManagerV1);
delegate_noop!(State: ZwpVirtualKeyboardV1);
delegate_noop!(State: ZwlrScreencopyManagerV1);
