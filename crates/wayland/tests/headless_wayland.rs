//! The headless Wayland desktop on its own: sway starts and ends with its
//! buses, an app runs on it as a native Wayland client, sway tells where its
//! window is, and a capture of it is a real picture.

use std::time::{Duration, Instant};
use uidrive_wayland::{sway, WaylandDesktop};

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

#[test]
fn a_wayland_desktop_runs_an_app_natively_and_ends_everything() {
    let started = Instant::now();
    let desktop = WaylandDesktop::start().expect("the headless Wayland desktop starts");
    eprintln!(
        "headless Wayland desktop started in {:?}",
        started.elapsed()
    );
    let pids = desktop.process_ids();
    assert_eq!(pids.len(), 4, "sway and three bus processes: {desktop:?}");
    // As in a person's session: WAYLAND_DISPLAY is a name in the desktop's
    // own XDG_RUNTIME_DIR, and the socket there is sway's.
    let name = desktop.wayland_display();
    assert!(
        name.starts_with("wayland-") && !name.contains('/'),
        "{name}"
    );
    let env = desktop.env();
    let var = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(var("WAYLAND_DISPLAY"), Some(name));
    assert_eq!(
        var("XDG_RUNTIME_DIR").map(std::path::Path::new),
        Some(desktop.runtime_dir())
    );
    let socket = desktop.runtime_dir().join(name);
    assert_eq!(socket, desktop.wayland_socket());
    let listener = uidrive_wayland::socket_listener(&socket).expect("the socket answers");
    assert!(
        pids.contains(&listener),
        "{listener} is not one of {pids:?}"
    );
    assert_eq!(
        std::fs::read_to_string(format!("/proc/{listener}/comm"))
            .unwrap()
            .trim(),
        "sway"
    );
    assert!(env.iter().all(|(k, _)| k != "DISPLAY"), "{env:?}");
    assert!(env
        .iter()
        .any(|(k, v)| k == "GDK_BACKEND" && v == "wayland"));

    let mut app = desktop
        .command("mousepad")
        .env_remove("DISPLAY")
        .spawn()
        .expect("mousepad starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let view = loop {
        let views = sway::views(desktop.swaysock()).expect("sway's tree");
        if let Some(v) = views.into_iter().find(|v| v.pid == app.id()) {
            break v;
        }
        assert!(
            Instant::now() < deadline,
            "mousepad showed no window on sway"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // Its environment: the Wayland display, no X display.
    let environ = std::fs::read(format!("/proc/{}/environ", app.id())).unwrap();
    let vars: Vec<&[u8]> = environ.split(|b| *b == 0).collect();
    assert!(vars.iter().any(|v| v.starts_with(b"WAYLAND_DISPLAY=")));
    assert!(!vars.iter().any(|v| v.starts_with(b"DISPLAY=")));
    let (x, y, w, h) = view.content;
    assert!(w > 100 && h > 100, "{view:?}");

    // A capture of its window is a real picture of its size: many colours.
    let wayland = desktop.connect().expect("a Wayland connection");
    let deadline = Instant::now() + Duration::from_secs(30);
    let capture = loop {
        let capture = wayland.capture_rect(x, y, w, h).expect("a capture");
        let colours = colours(&capture.png);
        if colours > 2 {
            break capture;
        }
        assert!(
            Instant::now() < deadline,
            "the capture stayed blank ({colours} colours)"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!((capture.width, capture.height), (w, h));
    assert_eq!(&capture.png[1..4], b"PNG");

    let _ = app.kill();
    let _ = app.wait();
    drop(wayland);
    let runtime_dir = desktop.runtime_dir().to_path_buf();
    desktop.stop();
    for pid in pids {
        assert!(!alive(pid), "process {pid} of the desktop still runs");
    }
    // The runtime directory, with the socket's name in it, went too.
    assert!(
        std::fs::symlink_metadata(&socket).is_err() && !runtime_dir.exists(),
        "{} stayed",
        runtime_dir.display()
    );
}

/// Two desktops at once share nothing: each names its socket in a runtime
/// directory of its own, and the socket each names is its own sway's.
#[test]
fn two_wayland_desktops_at_once_each_name_their_own_sway() {
    let one = WaylandDesktop::start().expect("a first desktop starts");
    let two = WaylandDesktop::start().expect("a second desktop starts");
    assert_ne!(one.runtime_dir(), two.runtime_dir());
    for desktop in [&one, &two] {
        let listener = uidrive_wayland::socket_listener(&desktop.wayland_socket())
            .expect("the socket answers");
        assert!(
            desktop.process_ids().contains(&listener),
            "{listener} is not one of this desktop's processes: {desktop:?}"
        );
    }
    let (one_dir, one_socket) = (one.runtime_dir().to_path_buf(), one.wayland_socket());
    one.stop();
    assert!(std::fs::symlink_metadata(&one_socket).is_err() && !one_dir.exists());
    // The other one's socket still answers, as its sway's.
    let listener = uidrive_wayland::socket_listener(&two.wayland_socket())
        .expect("the second desktop's socket still answers");
    assert!(two.process_ids().contains(&listener));
}

/// How many different colours a PNG has (up to a few).
fn colours(png: &[u8]) -> usize {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let mut seen = std::collections::HashSet::new();
    for px in buf[..info.buffer_size()].chunks(3) {
        seen.insert(px.to_vec());
        if seen.len() > 8 {
            break;
        }
    }
    seen.len()
}
