//! Window management from the command line on uidrive's headless desktop,
//! whose window manager (openbox) does what it is asked: gtk3-widget-factory
//! is resized, moved, maximized, minimized and restored, each confirmed by
//! `windows`; a size below the app's own minimum fails and says so; `apps`
//! lists the app; `screenshot --desktop` writes the whole screen.

use serde_json::Value;
use std::process::{Command, Output};

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::Builder::new()
                .prefix("ud")
                .tempdir_in("/tmp")
                .unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "windows", "--json"])
            .args(args)
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env_remove("UIDRIVE_SESSION")
            .output()
            .expect("uidrive runs")
    }

    fn ok(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "uidrive {args:?}\nstdout: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
    }

    fn failed(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_ne!(
            out.status.code(),
            Some(0),
            "uidrive {args:?} failed: {stdout}"
        );
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
    }

    /// The only window, as `windows` lists it.
    fn window(&self) -> Value {
        let listed = self.ok(&["windows"]);
        let windows = listed["data"]["windows"].as_array().cloned().unwrap();
        assert_eq!(windows.len(), 1, "one window: {windows:?}");
        windows[0].clone()
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "windows", "close"])
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .output();
    }
}

fn states(window: &Value) -> Vec<String> {
    window["states"]
        .as_array()
        .unwrap_or_else(|| panic!("windows gives states: {window}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// A box of `windows`: `bounds` (the whole window, its title bar and
/// borders included) or `contentBounds` (the app's content, which `window
/// move` places and `window resize` sizes).
fn rect(b: &Value) -> (i64, i64, i64, i64) {
    (
        b["x"].as_i64().unwrap(),
        b["y"].as_i64().unwrap(),
        b["width"].as_i64().unwrap(),
        b["height"].as_i64().unwrap(),
    )
}

/// The window's content. gtk3-widget-factory draws its own title bar (a
/// header bar: client-side decorations), so openbox draws no frame round
/// it, and the whole window is its content (tests/java.rs in uidrive-atspi
/// checks a window openbox frames).
fn bounds(window: &Value) -> (i64, i64, i64, i64) {
    let content = rect(&window["contentBounds"]);
    assert_eq!(rect(&window["bounds"]), content, "no frame: {window}");
    content
}

#[test]
fn gtk3_widget_factory_is_resized_moved_maximized_minimized_and_restored() {
    let home = Home::new();
    home.ok(&["open", "--headless", "--launch", "gtk3-widget-factory"]);
    let first = home.window();
    assert!(states(&first).contains(&"focused".to_string()), "{first}");
    assert_eq!(
        first["zIndex"], 0,
        "the only window is at the bottom: {first}"
    );

    // gtk3-widget-factory asks for at least 1366x741 (WM_NORMAL_HINTS):
    // the window manager keeps to it, and uidrive says so.
    let refused = home.failed(&["window", "resize", "900", "700"]);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("did not resize to 900x700") && message.contains("smallest size is"),
        "{message}"
    );

    let resized = home.ok(&["window", "resize", "1500", "900"]);
    assert_eq!(resized["data"]["window"]["effect"], "confirmed");
    assert_eq!(
        rect(&resized["data"]["window"]["frame"]),
        rect(&resized["data"]["window"]["bounds"]),
        "the whole window is its content (a header bar, no frame): {resized}"
    );
    let (_, _, w, h) = bounds(&home.window());
    assert_eq!((w, h), (1500, 900), "windows reads the new size back");

    home.ok(&["window", "move", "120", "90"]);
    let (x, y, w, h) = bounds(&home.window());
    assert_eq!((x, y, w, h), (120, 90, 1500, 900), "moved, same size");

    home.ok(&["window", "maximize"]);
    let maximized = home.window();
    assert!(
        states(&maximized).contains(&"maximized".to_string()),
        "{maximized}"
    );
    let (_, _, w, h) = bounds(&maximized);
    assert_eq!((w, h), (1920, 1200), "the whole screen (no panel on it)");

    home.ok(&["window", "minimize"]);
    let minimized = home.window();
    assert!(
        states(&minimized).contains(&"minimized".to_string()),
        "{minimized}"
    );
    assert!(
        !states(&minimized).contains(&"focused".to_string()),
        "{minimized}"
    );
    let said = home.ok(&["window", "states"]);
    assert!(
        said["data"]["window"]["states"]
            .as_array()
            .unwrap()
            .contains(&Value::from("minimized")),
        "{said}"
    );

    home.ok(&["window", "restore"]);
    let restored = home.window();
    let now = states(&restored);
    assert!(!now.contains(&"minimized".to_string()), "{restored}");
    assert!(!now.contains(&"maximized".to_string()), "{restored}");
    assert_eq!(
        bounds(&restored),
        (120, 90, 1500, 900),
        "back where it was before it was maximized"
    );
    home.ok(&["window", "focus"]);
    assert!(states(&home.window()).contains(&"focused".to_string()));

    // Every app on the accessibility bus, this one with its window.
    let apps = home.ok(&["apps"]);
    let listed = apps["data"]["apps"].as_array().unwrap();
    let factory = listed
        .iter()
        .find(|a| a["name"] == "gtk3-widget-factory")
        .unwrap_or_else(|| panic!("apps lists the factory: {apps}"));
    assert_eq!(factory["toolkit"], "gtk");
    assert!(factory["pid"].as_u64().unwrap() > 1);
    assert_eq!(
        factory["windows"],
        serde_json::json!(["gtk3-widget-factory"])
    );

    // The whole screen, not just the window, and not blank.
    let file = home.dir.path().join("desktop.png");
    let shot = home.ok(&["screenshot", "--desktop", file.to_str().unwrap()]);
    assert_eq!(
        (
            shot["data"]["width"].as_u64(),
            shot["data"]["height"].as_u64()
        ),
        (Some(1920), Some(1200))
    );
    let png = std::fs::read(&file).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let ihdr = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((ihdr(16), ihdr(20)), (1920, 1200), "its header's size");
    // A blank screen of one colour compresses to a few KiB; one that shows
    // the factory's widgets takes far more.
    assert!(
        png.len() > 40_000,
        "the screen shows the window: {} bytes",
        png.len()
    );

    // One element alone: its box cut from the window's capture.
    let target = "role=checkBox name=checkbutton >> nth=0";
    let bounds = home.ok(&["get", "bounds", target]);
    let element = home.dir.path().join("element.png");
    let shot = home.ok(&["screenshot", target, element.to_str().unwrap()]);
    let png = std::fs::read(&element).unwrap();
    let ihdr = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    let size = (ihdr(16), ihdr(20));
    assert_eq!(
        (
            shot["data"]["width"].as_u64(),
            shot["data"]["height"].as_u64()
        ),
        (Some(u64::from(size.0)), Some(u64::from(size.1)))
    );
    let b = &bounds["data"]["bounds"];
    let (w, h) = (b["width"].as_f64().unwrap(), b["height"].as_f64().unwrap());
    assert!(
        (f64::from(size.0) - w).abs() <= 1.0 && (f64::from(size.1) - h).abs() <= 1.0,
        "the element's size {w}x{h}, captured as {size:?}: {bounds}"
    );

    // Closing asks the window as its close button would; the app then ends.
    let closed = home.ok(&["window", "close"]);
    assert_eq!(closed["data"]["window"]["closed"], true, "{closed}");
}

/// A window the app lets go that small is resized to 900x700 (the size the
/// widget factory refuses above): mousepad, framed by openbox, whose content
/// takes the size asked while its frame (title bar, borders) is around it.
#[test]
fn mousepad_is_resized_to_900x700_inside_its_frame() {
    let home = Home::new();
    let config = home.dir.path().join("config");
    home.ok(&[
        "open",
        "--headless",
        "--launch",
        "env",
        &format!("XDG_CONFIG_HOME={}", config.display()),
        "mousepad",
    ]);
    let resized = home.ok(&["window", "resize", "900", "700"]);
    assert_eq!(
        resized["data"]["window"]["effect"], "confirmed",
        "{resized}"
    );
    let window = home.window();
    let (_, _, w, h) = rect(&window["contentBounds"]);
    assert_eq!(
        (w, h),
        (900, 700),
        "windows reads the new size back: {window}"
    );
    let (_, _, fw, fh) = rect(&window["bounds"]);
    assert!(
        fw > w && fh > h,
        "the frame is around the content: {window}"
    );
}
