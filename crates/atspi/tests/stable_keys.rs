//! Stable selectors on real apps: an element's lasting name (`key`), its
//! classes and tag, and a field's placeholder beside its label, as Firefox,
//! Chromium and GTK 3 give them, each on a private headless desktop.
//!
//! Firefox and Chromium answer every `AccessibleId` empty and give a page's
//! `id`, `class` and tag as object attributes; GTK 3 answers the accessible
//! id an app set through ATK (`atk_object_set_accessible_id`), and not a
//! GtkBuilder id. What is filled is read back from the page itself (a
//! paragraph the page rewrites on every input), since Firefox can answer a
//! text replacement with success and keep the old text.

use std::path::{Path, PathBuf};
use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::protocol::{ActParams, Action, ElementKey, Node, Role};
use uidrive_core::{expect, App, ErrorCode, TextMatch};
use uidrive_x11::Desktop;

const PAGE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Address form</title></head>
<body>
<label for="city">City</label> <input id="city" class="field wide" type="text">
<label for="zip">Postcode</label> <input id="zip" class="field narrow" type="text" placeholder="ZIP">
<input id="note" aria-label="Note" placeholder="Say more" type="text">
<p id="out" class="result">nothing yet</p>
<script>
for (const id of ["city", "zip"]) {
  document.getElementById(id).addEventListener("input", () => {
    const value = (name) => document.getElementById(name).value;
    document.getElementById("out").textContent = "city " + value("city") + " zip " + value("zip");
  });
}
</script>
</body></html>
"#;

/// A directory of its own under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("uidrive-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to `name` inside the directory; its path.
    fn file(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn launch(desktop: &Desktop, argv: &[String]) -> App {
    let options = LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(60),
    };
    let app = launch_app(argv, &options).unwrap_or_else(|e| panic!("{} launches: {e}", argv[0]));
    // A page loads after its window shows.
    app.set_timeouts(uidrive_core::Timeouts {
        action: Duration::from_secs(20),
        expect: Duration::from_secs(20),
    });
    app
}

#[test]
fn firefox_page_ids_are_keys_with_classes_tags_and_placeholders_beside_labels() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("firefox-keys");
    let page = dir.file("form.html", PAGE);
    let profile = dir.path().join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(
        profile.join("user.js"),
        "user_pref(\"browser.aboutwelcome.enabled\", false);\n\
         user_pref(\"datareporting.policy.firstRunURL\", \"\");\n\
         user_pref(\"browser.startup.homepage_override.mstone\", \"ignore\");\n",
    )
    .unwrap();
    let argv: Vec<String> = vec![
        "firefox-esr".into(),
        "--new-instance".into(),
        "--profile".into(),
        profile.display().to_string(),
        format!("file://{page}"),
    ];
    let app = launch(&desktop, &argv);
    page_ids_are_keys(&app);
    // Firefox's own UI gives its markup's ids too: the address bar's field.
    let bar = app.get_by_key("urlbar-input").node().unwrap();
    assert_eq!(bar.role, Role::ComboBox, "{bar:?}");
    app.close().unwrap();
}

#[test]
fn chromium_page_ids_are_keys_with_classes_tags_and_placeholders_beside_labels() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("chromium-keys");
    let page = dir.file("form.html", PAGE);
    let argv: Vec<String> = vec![
        "chromium".into(),
        "--force-renderer-accessibility".into(),
        "--no-sandbox".into(),
        format!("--user-data-dir={}", dir.path().join("profile").display()),
        "--no-first-run".into(),
        "--disable-gpu".into(),
        format!("file://{page}"),
    ];
    let app = launch(&desktop, &argv);
    page_ids_are_keys(&app);
    app.close().unwrap();
}

/// The page's fields by their `id`s, filled and read back from the page.
fn page_ids_are_keys(app: &App) {
    let city = app.get_by_key("city");
    expect(&city).to_be_visible().unwrap();
    let node = city.node().unwrap();
    assert_eq!(node.role, Role::TextField, "{node:?}");
    assert_eq!(node.label.as_deref(), Some("City"), "{node:?}");
    assert_eq!(node.classes, ["field", "wide"], "{node:?}");
    assert_eq!(node.tag.as_deref(), Some("input"), "{node:?}");

    // The placeholder is kept beside the label the field also has.
    let zip = app.locator("key=zip");
    let node = zip.node().unwrap();
    assert_eq!(node.label.as_deref(), Some("Postcode"), "{node:?}");
    assert_eq!(node.placeholder.as_deref(), Some("ZIP"), "{node:?}");
    assert_eq!(node.classes, ["field", "narrow"], "{node:?}");
    let note = app.get_by_key("note").node().unwrap();
    assert_eq!(note.label.as_deref(), Some("Note"), "{note:?}");
    assert_eq!(note.placeholder.as_deref(), Some("Say more"), "{note:?}");

    // A selector by key fills the field, and the page sees it.
    zip.fill("75001").unwrap();
    expect(&zip)
        .to_have_value(TextMatch::exact("75001"))
        .unwrap();
    let out = app.get_by_key("out");
    expect(&out)
        .to_have_text(TextMatch::exact("city  zip 75001"))
        .unwrap();
    assert_eq!(out.node().unwrap().classes, ["result"]);

    // The protocol's own `act` by key, as any client of `uidrive serve`
    // sends it (Chromium's fields take no `setValue`: focus is the action
    // both browsers take).
    let by_key = ActParams {
        window: None,
        id: None,
        key: Some(ElementKey::from("city")),
        action: Action::Focus,
        text: None,
        from: None,
        to: None,
    };
    app.driver().act(&by_key).unwrap();
    expect(&city).to_be_focused().unwrap();

    // A key no element has is no element, not a guess.
    let none = app
        .get_by_key("country")
        .with_timeout(Duration::from_secs(2))
        .node()
        .unwrap_err();
    assert_eq!(none.code, ErrorCode::NoElement, "{none}");
}

/// A GTK 3 window: two widgets made by GtkBuilder with ids, two made in
/// code and given accessible ids through ATK.
const GTK3_APP: &str = r#"
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk

UI = """<interface>
<object class="GtkWindow" id="main_window"><property name="title">Keys</property>
<child><object class="GtkBox" id="box"><property name="orientation">vertical</property>
<child><object class="GtkEntry" id="built_entry"><property name="placeholder-text">Built</property></object></child>
</object></child></object></interface>"""

builder = Gtk.Builder.new_from_string(UI, -1)
window = builder.get_object("main_window")
box = builder.get_object("box")
town = Gtk.Entry()
town.set_placeholder_text("Where")
town.get_accessible().set_name("Town")
town.get_accessible().set_accessible_id("town")
box.add(town)
shown = Gtk.Label(label="nothing")
shown.get_accessible().set_accessible_id("shown")
box.add(shown)
town.connect("changed", lambda entry: shown.set_text("town " + entry.get_text()))
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
"#;

#[test]
fn gtk3_accessible_ids_are_keys_and_placeholders_stay_beside_names() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("gtk3-keys");
    let script = dir.file("keys.py", GTK3_APP);
    let app = launch(&desktop, &["/usr/bin/python3".into(), script]);

    let town = app.get_by_key("town");
    let node: Node = town.node().unwrap();
    assert_eq!(node.role, Role::TextField, "{node:?}");
    assert_eq!(node.label.as_deref(), Some("Town"), "{node:?}");
    assert_eq!(node.placeholder.as_deref(), Some("Where"), "{node:?}");
    town.fill("Lyon").unwrap();
    expect(&town)
        .to_have_value(TextMatch::exact("Lyon"))
        .unwrap();
    expect(&app.get_by_key("shown"))
        .to_have_text(TextMatch::exact("town Lyon"))
        .unwrap();

    // GtkBuilder's ids stay inside GTK: the built entry has no key.
    let tree = app.tree(None).unwrap();
    let built = tree
        .nodes
        .iter()
        .find(|n| n.placeholder.as_deref() == Some("Built"))
        .expect("the built entry is read, with its placeholder");
    assert_eq!(built.key, None, "{built:?}");
    app.close().unwrap();
}
