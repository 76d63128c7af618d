//! XTest input and capture against a real app (zenity, GTK 3) on a private desktop.

mod common;

use std::process::Stdio;
use std::time::Instant;

use common::{wait_for, wait_for_exit, KillOnDrop, TIMEOUT};
use uidrive_core::protocol::{InputEvent, KeyChord, PointerButton};
use uidrive_x11::{Desktop, XWindow, X11};

/// Starts `zenity args...` on the desktop with its stdout piped.
fn zenity(desktop: &Desktop, args: &[&str]) -> KillOnDrop {
    let child = desktop
        .command("zenity")
        .args(args)
        // zenity prints the entry in the locale's charset.
        .env("LANG", "C.UTF-8")
        .env("LC_ALL", "C.UTF-8")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("zenity runs (install it with scripts/install-deps.sh)");
    KillOnDrop(child)
}

/// The app's shown window, once it is mapped with its real size.
fn shown_window(x: &X11, pid: u32) -> XWindow {
    wait_for("the app's window", TIMEOUT, || {
        x.find_windows_by_pid(pid)
            .unwrap()
            .into_iter()
            .find(|w| w.viewable && !w.override_redirect && w.geometry.width > 50)
    })
}

fn key(chord: &str) -> InputEvent {
    InputEvent::Key {
        key: chord.parse::<KeyChord>().unwrap(),
    }
}

fn text(text: &str) -> InputEvent {
    InputEvent::Text {
        text: text.to_string(),
    }
}

/// Focuses the window and sends it each request in turn; returns what zenity prints.
fn type_into_entry(requests: &[Vec<InputEvent>]) -> String {
    let desktop = Desktop::start().expect("the desktop starts");
    let x = desktop.x11().unwrap();
    let mut app = zenity(&desktop, &["--entry", "--text=Your name"]);
    let window = shown_window(&x, app.0.id());
    x.focus(window.id).unwrap();
    let origin = (window.geometry.x as f64, window.geometry.y as f64);
    for events in requests {
        x.send(origin, events).unwrap();
    }
    wait_for_exit(&mut app.0, TIMEOUT)
}

#[test]
fn text_with_characters_on_no_key_reaches_a_gtk_entry() {
    let printed = type_into_entry(&[
        vec![text("héllo wörld ✓ Ωμέγα 日本 ∑")],
        // A second request reuses the keycodes the first one lent.
        vec![text(" ✓ 本日 😀"), key("Enter")],
    ]);
    assert_eq!(
        printed.trim_end_matches('\n'),
        "héllo wörld ✓ Ωμέγα 日本 ∑ ✓ 本日 😀"
    );
}

#[test]
fn a_long_text_of_many_characters_on_no_key_arrives_intact() {
    // 80 different characters on no key of the US keymap, each once, then repeated.
    let rare: String = ('\u{4e00}'..='\u{4e27}')
        .chain('\u{0410}'..='\u{0427}')
        .chain('\u{03b1}'..='\u{03c0}')
        .collect();
    assert_eq!(rare.chars().count(), 80);
    let typed = format!("{rare} {rare}");
    let printed = type_into_entry(&[vec![text(&typed), key("Enter")]]);
    assert_eq!(printed.trim_end_matches('\n'), typed);
}

#[test]
fn key_chords_edit_the_entry() {
    let printed = type_into_entry(&[vec![
        text("first"),
        // Select all and replace it.
        key("CmdOrCtrl+A"),
        text("Grüße?!"),
        key("Backspace"),
        key("Left"),
        key("Shift+Home"),
        text("X"),
        key("Enter"),
    ]]);
    assert_eq!(printed.trim_end_matches('\n'), "X?");
}

#[test]
fn the_window_is_found_by_pid_with_its_title_and_geometry() {
    let desktop = Desktop::start().expect("the desktop starts");
    let x = desktop.x11().unwrap();
    let app = zenity(
        &desktop,
        &["--info", "--title=Hello from uidrive", "--text=hi"],
    );
    let window = shown_window(&x, app.0.id());
    assert_eq!(window.pid, Some(app.0.id()));
    assert_eq!(window.title, "Hello from uidrive");
    assert_eq!(window.class, "Zenity");
    assert_eq!(x.window_geometry(window.id).unwrap(), window.geometry);
    assert!(x.find_windows_by_pid(1).unwrap().is_empty());

    x.focus(window.id).unwrap();
    // The window or one inside it (GTK may focus a child of its own under a window manager).
    let focused = x.focused_window().unwrap();
    assert!(
        x.is_inside(focused, window.id).unwrap(),
        "the focus {focused:#x} is in {:#x}",
        window.id
    );
}

#[test]
fn a_capture_is_a_png_of_the_window() {
    let desktop = Desktop::start().expect("the desktop starts");
    let x = desktop.x11().unwrap();
    let app = zenity(&desktop, &["--entry", "--text=Capture me"]);
    let window = shown_window(&x, app.0.id());

    // The window paints after it maps: poll until it shows more than one colour.
    let (capture, pixels) = wait_for("the window to paint", TIMEOUT, || {
        let capture = x.capture_window(window.id).unwrap();
        let pixels = decode_rgb(&capture.png);
        let first = &pixels[..3];
        let painted = pixels.chunks_exact(3).any(|p| p != first);
        painted.then_some((capture, pixels))
    });
    assert_eq!(capture.width, window.geometry.width);
    assert_eq!(capture.height, window.geometry.height);
    assert_eq!(
        pixels.len(),
        capture.width as usize * capture.height as usize * 3
    );
    let colours: std::collections::HashSet<&[u8]> = pixels.chunks_exact(3).collect();
    assert!(colours.len() > 10, "only {} colours", colours.len());

    // Timing, for the report (not an assertion: machines differ).
    let started = Instant::now();
    let runs = 5;
    for _ in 0..runs {
        x.capture_window(window.id).unwrap();
    }
    eprintln!(
        "capture of {}x{}: {:?} each",
        capture.width,
        capture.height,
        started.elapsed() / runs
    );
    let (w, h) = x.screen_size();
    let screen = uidrive_x11::Rect {
        x: 0,
        y: 0,
        width: w,
        height: h,
    };
    let started = Instant::now();
    let (_, rgb) = x.capture_rgb(screen).unwrap();
    let read = started.elapsed();
    let started = Instant::now();
    uidrive_x11::encode_png(w, h, &rgb).unwrap();
    eprintln!(
        "capture of the {w}x{h} screen: read+convert {read:?}, png {:?}",
        started.elapsed()
    );
}

#[test]
fn pointer_events_move_the_real_pointer_relative_to_the_origin() {
    let desktop = Desktop::start().expect("the desktop starts");
    let x = desktop.x11().unwrap();
    x.send(
        (100.0, 200.0),
        &[InputEvent::PointerMove {
            x: 10.4,
            y: 20.6,
            mods: vec![],
        }],
    )
    .unwrap();
    assert_eq!(x.pointer_position().unwrap(), (110, 221));
    let mut click = PointerButton::at(5.0, 5.0);
    click.clicks = Some(2);
    x.send((0.0, 0.0), &[InputEvent::Click(click)]).unwrap();
    assert_eq!(x.pointer_position().unwrap(), (5, 5));
}

fn decode_rgb(png_bytes: &[u8]) -> Vec<u8> {
    let decoder = png::Decoder::new(png_bytes);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    buf
}

/// The number of apps the registry lists on the accessibility bus.
fn registered_apps(a11y_bus: &str) -> u32 {
    let out = std::process::Command::new("dbus-send")
        .arg(format!("--bus={a11y_bus}"))
        .args([
            "--print-reply=literal",
            "--reply-timeout=10000",
            "--dest=org.a11y.atspi.Registry",
            "/org/a11y/atspi/accessible/root",
            "org.freedesktop.DBus.Properties.Get",
            "string:org.a11y.atspi.Accessible",
            "string:ChildCount",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().last().unwrap().parse().unwrap()
}

#[test]
fn gtk3_and_gtk4_apps_register_on_the_desktops_accessibility_bus() {
    let desktop = Desktop::start().expect("the desktop starts");
    let a11y = desktop.a11y_bus_address().unwrap();
    assert_eq!(registered_apps(&a11y), 0);

    let _gtk3 = zenity(&desktop, &["--info", "--text=GTK 3"]);
    wait_for("zenity (GTK 3) to register", TIMEOUT, || {
        (registered_apps(&a11y) >= 1).then_some(())
    });

    // gtk4-widget-factory registers only with GSK_RENDERER=cairo, which env() sets.
    let mut apps = vec![];
    for (count, program) in [(2, "gtk4-demo"), (3, "gtk4-widget-factory")] {
        let child = desktop
            .command(program)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the GTK 4 examples run (install them with scripts/install-deps.sh)");
        apps.push(KillOnDrop(child));
        wait_for(&format!("{program} (GTK 4) to register"), TIMEOUT, || {
            (registered_apps(&a11y) >= count).then_some(())
        });
    }
}

/// A zenity text view full of words, shown and painted, with its window.
fn text_view(desktop: &Desktop, x: &X11) -> (KillOnDrop, XWindow, Vec<u8>) {
    let file = desktop.runtime_dir().join("words.txt");
    // Numbered lines, so that any scroll changes what shows.
    let text: String = (0..300)
        .map(|n| format!("line {n:03} lorem ipsum dolor sit amet consectetur adipiscing elit\n"))
        .collect();
    std::fs::write(&file, text).unwrap();
    let app = zenity(
        desktop,
        &[
            "--text-info",
            &format!("--filename={}", file.display()),
            "--width=600",
            "--height=400",
        ],
    );
    let window = shown_window(x, app.0.id());
    // Painted and still: two captures in a row show the same pixels.
    let mut last = Vec::new();
    let pixels = wait_for("the text to paint", TIMEOUT, || {
        let now = x.capture_window(window.id).unwrap().png;
        let rgb = decode_rgb(&now);
        let painted = rgb.chunks_exact(3).any(|p| p != &rgb[..3]);
        let still = now == last;
        last = now;
        (painted && still).then_some(rgb)
    });
    (app, window, pixels)
}

#[test]
fn the_wheel_scrolls_a_text_view() {
    let desktop = Desktop::start().expect("the desktop starts");
    let x = desktop.x11().unwrap();
    let (_app, window, before) = text_view(&desktop, &x);
    let origin = (window.geometry.x as f64, window.geometry.y as f64);
    let wheel = InputEvent::Wheel {
        x: 300.0,
        y: 150.0,
        dx: 0.0,
        dy: 500.0,
        precise: false,
        mods: vec![],
    };
    x.send(origin, &[wheel]).unwrap();
    // The left half holds text only (the scrollbar, which shows on any pointer
    // motion, is at the right edge): it changes only if the text moved.
    let width = window.geometry.width as usize;
    let left_half = |rgb: &[u8]| -> Vec<u8> {
        rgb.chunks_exact(width * 3)
            .flat_map(|row| row[..width / 2 * 3].to_vec())
            .collect()
    };
    wait_for("the view to scroll", TIMEOUT, || {
        let now = decode_rgb(&x.capture_window(window.id).unwrap().png);
        (left_half(&now) != left_half(&before)).then_some(())
    });
}

#[test]
fn a_double_click_selects_a_word() {
    let desktop = Desktop::start().expect("the desktop starts");
    let x = desktop.x11().unwrap();
    let (_app, window, before) = text_view(&desktop, &x);
    let origin = (window.geometry.x as f64, window.geometry.y as f64);
    let mut click = PointerButton::at(60.0, 40.0);
    click.clicks = Some(2);
    x.send(origin, &[InputEvent::Click(click)]).unwrap();
    // The selection's highlight is blue (Adwaita); nothing else in the view is.
    let blue = |rgb: &[u8]| {
        rgb.chunks_exact(3)
            .filter(|p| p[2] > 150 && p[2] as i32 > p[0] as i32 + 60)
            .count()
    };
    assert_eq!(blue(&before), 0);
    wait_for("the word to be highlighted", TIMEOUT, || {
        let now = decode_rgb(&x.capture_window(window.id).unwrap().png);
        (blue(&now) > 100).then_some(())
    });
}
