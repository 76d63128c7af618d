//! The command line against uidrive's in-memory demo UI: served in this test
//! process (so the test can change the UI under the CLI's feet) or by the
//! `uidrive serve --demo` daemon that `open --demo` starts.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use uidrive_core::protocol::ElementKey;
use uidrive_core::{serve, MemoryDriver, Server};

/// A private cache and runtime directory, so sessions don't touch the user's.
struct Home {
    dir: tempfile::TempDir,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
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

    fn uidrive(&self, session: &str, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(args)
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env("UIDRIVE_SESSION", session)
            .output()
            .expect("uidrive runs");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs and expects success, answering stdout.
    fn ok(&self, session: &str, args: &[&str]) -> String {
        let run = self.uidrive(session, args);
        assert_eq!(
            run.code, 0,
            "uidrive {args:?}\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        );
        run.stdout
    }

    fn session_file(&self, session: &str) -> PathBuf {
        self.dir.path().join("cache/uidrive/sessions").join(session)
    }
}

/// The demo UI served from this process, which the test can edit.
struct Served {
    driver: Arc<MemoryDriver>,
    socket: PathBuf,
    _server: Server,
}

fn served(home: &Home) -> Served {
    let driver = Arc::new(MemoryDriver::new());
    let socket = home.dir.path().join("app.sock");
    let server = serve(driver.clone(), &socket).expect("serve the demo");
    Served {
        driver,
        socket,
        _server: server,
    }
}

fn open_socket(home: &Home, session: &str, socket: &Path) {
    home.ok(session, &["open", "--socket", socket.to_str().unwrap()]);
}

const CONTROLS: &str = "\
@e2 [button] \"Add\" key=add
@e3 [textField] \"Name\" value=\"Ada\" key=name
@e4 [checkBox] \"Subscribe\" key=subscribe
@e5 [slider] \"Volume\" value=\"50\" key=volume
@e7 [listItem] \"Apple\" key=apple
@e8 [listItem] \"Banana\" key=banana
@e9 [listItem] \"Cherry\" key=cherry
@e11 [menuItem] \"File\" key=file collapsed
";

#[test]
fn snapshot_i_lists_the_controls_with_refs() {
    let home = Home::new();
    let app = served(&home);
    open_socket(&home, "s", &app.socket);
    assert_eq!(home.ok("s", &["snapshot", "-i"]), CONTROLS);
    // The full view has the text and the containers too, indented.
    let full = home.ok("s", &["snapshot"]);
    assert!(
        full.starts_with("@e1 [text] \"Count: 0\" key=count\n"),
        "{full}"
    );
    assert!(
        full.contains("\n  @e7 [listItem] \"Apple\" key=apple\n"),
        "{full}"
    );
    // A skeleton counts what it leaves out; a ref drills down.
    let skeleton = home.ok("s", &["snapshot", "--depth", "0"]);
    assert!(
        skeleton.contains("@e6 [list] \"Fruits\" key=fruits (+3)\n"),
        "{skeleton}"
    );
    assert_eq!(
        home.ok("s", &["snapshot", "--root", "@e6", "-i"]),
        "@e7 [listItem] \"Apple\" key=apple\n@e8 [listItem] \"Banana\" key=banana\n@e9 [listItem] \"Cherry\" key=cherry\n"
    );
}

#[test]
fn press_settle_prints_what_changed() {
    let home = Home::new();
    let app = served(&home);
    open_socket(&home, "s", &app.socket);
    home.ok("s", &["snapshot", "-i"]);
    assert_eq!(
        home.ok("s", &["press", "@e2", "--settle"]),
        "- @e1 [text] \"Count: 0\" key=count\n+ @e1 [text] \"Count: 1\" key=count\n= @e2 [button] \"Add\" key=add\n"
    );
    // The diff is against the last observation: a second press shows 1 -> 2.
    let second = home.ok("s", &["press", "key=add", "--settle"]);
    assert!(second.contains("- @e1 [text] \"Count: 1\""), "{second}");
    assert!(second.contains("+ @e1 [text] \"Count: 2\""), "{second}");
    // Selectors reach the same elements; fill replaces a field's text.
    assert_eq!(
        home.ok("s", &["fill", "role=textField name=\"Name\"", "Grace", "--settle"]),
        "= @e2 [button] \"Add\" key=add\n- @e3 [textField] \"Name\" value=\"Ada\" key=name\n\
         + @e3 [textField] \"Name\" value=\"Grace\" key=name\n= @e4 [checkBox] \"Subscribe\" key=subscribe\n"
    );
    let checked = home.ok("s", &["check", "@e4", "--settle"]);
    assert!(
        checked.contains("\n+ @e4 [checkBox] \"Subscribe\" key=subscribe checked\n"),
        "{checked}"
    );
    // Already checked: nothing to do, and it says so.
    let again = home.uidrive("s", &["--json", "check", "@e4"]);
    assert_eq!(
        again.json()["data"]["route"],
        "not_needed",
        "{}",
        again.stdout
    );
    let count = app.driver.edit(|ui| ui.window_mut(None).unwrap().count);
    assert_eq!(count, 2, "the app saw two presses");
}

#[test]
fn a_ref_whose_element_went_is_refused_as_stale() {
    let home = Home::new();
    let app = served(&home);
    open_socket(&home, "s", &app.socket);
    home.ok("s", &["snapshot", "-i"]);
    app.driver.edit(|ui| {
        let window = ui.window_mut(None).unwrap();
        window
            .nodes
            .retain(|n| n.key != Some(ElementKey::from("banana")));
    });
    let run = home.uidrive("s", &["--json", "press", "@e8"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let answer = run.json();
    assert_eq!(answer["ok"], false);
    assert_eq!(answer["command"], "press");
    assert_eq!(answer["error"]["code"], "stale_ref");
    assert!(answer["error"]["suggestion"]
        .as_str()
        .unwrap()
        .contains("snapshot"));
    // The ref stays retired: a new element never gets it.
    let again = home.ok("s", &["snapshot", "-i"]);
    assert!(!again.contains("@e8"), "{again}");
    app.driver.edit(|ui| {
        let window = ui.window_mut(None).unwrap();
        let mut kiwi = window.nodes[6].clone();
        kiwi.id = uidrive_core::protocol::ElementId(77);
        kiwi.label = Some("Kiwi".into());
        kiwi.key = Some(ElementKey::from("kiwi"));
        window.nodes.push(kiwi);
    });
    let with_kiwi = home.ok("s", &["snapshot", "-i"]);
    assert!(
        with_kiwi.contains("@e12 [listItem] \"Kiwi\" key=kiwi\n"),
        "{with_kiwi}"
    );
    assert!(home.ok("s", &["press", "@e12"]).starts_with("pressed @e12"));
}

#[test]
fn two_sessions_side_by_side_keep_their_own_refs_and_apps() {
    let home = Home::new();
    home.ok("a", &["open", "--demo"]);
    home.ok("b", &["open", "--demo"]);
    home.ok("a", &["snapshot", "-i"]);
    // Session b has taken no snapshot: a's refs mean nothing there.
    let run = home.uidrive("b", &["press", "@e2"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("stale_ref"), "{}", run.stderr);
    assert!(home
        .ok("a", &["press", "@e2", "--settle"])
        .contains("+ @e1 [text] \"Count: 1\""));
    // b drives its own app, where nothing was pressed.
    assert!(home
        .ok("b", &["snapshot"])
        .starts_with("@e1 [text] \"Count: 0\""));
    let mode = std::fs::metadata(home.session_file("a")).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o600
    );
    assert!(home.ok("a", &["close"]).contains("stopped"));
    assert!(!home.session_file("a").exists());
    assert!(
        home.ok("b", &["windows"]).contains("\"Counter\""),
        "b survives a's close"
    );
    home.ok("b", &["close"]);
}

#[test]
fn batch_runs_steps_in_order_and_observes_once() {
    let home = Home::new();
    let app = served(&home);
    open_socket(&home, "s", &app.socket);
    home.ok("s", &["snapshot", "-i"]);
    let out = home.ok(
        "s",
        &["batch", "fill @e3 'Ada Lovelace'", "press @e2", "press @e2"],
    );
    assert!(out.starts_with("ok 1: filled @e3"), "{out}");
    assert!(
        out.contains("+ @e1 [text] \"Count: 2\" key=count\n"),
        "{out}"
    );
    assert!(
        out.contains("+ @e3 [textField] \"Name\" value=\"Ada Lovelace\" key=name\n"),
        "{out}"
    );

    // It stops at the first failure; the steps after it don't run.
    let run = home.uidrive(
        "s",
        &["--json", "batch", "press @e2", "press @e99", "press @e2"],
    );
    assert_eq!(run.code, 1);
    let answer = run.json();
    assert_eq!(answer["error"]["code"], "stale_ref");
    assert_eq!(answer["data"]["steps"].as_array().unwrap().len(), 2);
    assert_eq!(app.driver.edit(|ui| ui.window_mut(None).unwrap().count), 3);

    // A step that does not parse runs nothing at all.
    let run = home.uidrive("s", &["batch", "press @e2", "presss @e2"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(app.driver.edit(|ui| ui.window_mut(None).unwrap().count), 3);
}

#[test]
fn json_envelopes_and_exit_codes() {
    let home = Home::new();
    let app = served(&home);
    open_socket(&home, "s", &app.socket);
    let run = home.uidrive("s", &["snapshot", "-i", "--json"]);
    assert_eq!(run.code, 0);
    let answer = run.json();
    assert_eq!(answer["ok"], true);
    assert_eq!(answer["command"], "snapshot");
    assert_eq!(answer["data"]["window"], 1);
    assert_eq!(answer["data"]["elements"][0]["ref"], "@e2");
    assert_eq!(answer["data"]["elements"][0]["role"], "button");

    // Bad arguments: exit 2, with an envelope when --json was asked for.
    let run = home.uidrive("s", &["--json", "press"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["error"]["code"], "invalid_request");
    assert_eq!(home.uidrive("s", &["frobnicate"]).code, 2);
    assert_eq!(
        home.uidrive("s", &["press", "Add"]).code,
        2,
        "a bare word is not a target"
    );
    assert_eq!(home.uidrive("bad/name", &["windows"]).code, 2);
    // An error of the app: exit 1.
    let run = home.uidrive(
        "s",
        &["--json", "--action-timeout", "300", "press", "key=nope"],
    );
    assert_eq!(run.code, 1);
    assert!(run.json()["error"]["message"].is_string());
    // Nothing open in another session.
    let run = home.uidrive("empty", &["--json", "snapshot"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["error"]["code"], "disconnected");
}

#[test]
fn skills_prints_the_built_in_guide() {
    let home = Home::new();
    let guide = home.ok("any", &["skills"]);
    assert!(guide.contains("uidrive snapshot -i"), "{guide}");
    assert!(guide.contains("stale_ref"));
}

#[test]
fn the_other_commands_reach_the_app() {
    let home = Home::new();
    let app = served(&home);
    open_socket(&home, "s", &app.socket);
    home.ok("s", &["snapshot", "-i"]);
    // The demo has no hit test, so `click` cannot tell that a real click
    // would land: it presses the button by its own action, and says so.
    let clicked = home.uidrive("s", &["--json", "click", "@e2"]);
    assert_eq!(clicked.code, 0);
    assert_eq!(clicked.json()["data"]["route"], "semantic:press");
    assert!(home
        .ok("s", &["wait", "--text", "Count: 1"])
        .ends_with("shows\n"));
    // A right click is always the pointer's: it focuses the button, and a
    // button's press is the primary button's.
    let right = home.ok("s", &["click", "@e2", "--button", "right", "--settle"]);
    assert!(
        right.contains("+ @e2 [button] \"Add\" key=add focused\n"),
        "{right}"
    );
    assert!(!right.contains("Count: 2"), "{right}");
    // Typing and keys go to the field.
    let typed = home.ok("s", &["type", " Lovelace", "--into", "@e3", "--settle"]);
    assert!(
        typed.contains("+ @e3 [textField] \"Name\" value=\"Ada Lovelace\""),
        "{typed}"
    );
    let keyed = home.ok(
        "s",
        &["key", "Backspace", "Backspace", "--into", "@e3", "--settle"],
    );
    assert!(keyed.contains("value=\"Ada Lovela\""), "{keyed}");
    assert_eq!(
        home.uidrive("s", &["key", "Ctrl+Nope"]).code,
        2,
        "a chord that does not parse"
    );
    // Lists choose by the item's text.
    let selected = home.ok("s", &["select", "@e6", "Banana", "--settle"]);
    assert!(
        selected.contains("+ @e8 [listItem] \"Banana\" key=banana selected\n"),
        "{selected}"
    );
    // Waiting: for text, for an element, for the window.
    assert!(home
        .ok("s", &["wait", "--text", "Count: 1"])
        .ends_with("shows\n"));
    assert_eq!(home.ok("s", &["wait"]), "settled\n");
    let run = home.uidrive("s", &["--json", "wait", "key=nope", "--timeout", "200"]);
    assert_eq!(
        (run.code, run.json()["error"]["code"].as_str()),
        (1, Some("timeout"))
    );
    // A screenshot is a PNG of the window's size.
    let shot = home.dir.path().join("shot.png");
    let out = home.ok("s", &["screenshot", shot.to_str().unwrap()]);
    assert!(out.contains("(400x275)"), "{out}");
    assert!(std::fs::read(&shot).unwrap().starts_with(b"\x89PNG"));
    // eval is for pages; a native window says so.
    let run = home.uidrive("s", &["--json", "eval", "1+1"]);
    assert_eq!(run.json()["error"]["code"], "unsupported");
    assert!(home
        .ok("s", &["menu", "File", "New"])
        .starts_with("chose File > New"));
}
