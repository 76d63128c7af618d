//! No false success, and errors that say what is true, with apps beyond the
//! GTK demos: Firefox ESR on a local HTML form, mousepad (GTK 3) and
//! gnome-text-editor (GTK 4, libadwaita), each on a private headless desktop.
//!
//! Firefox answers an accessibility text replacement with success and keeps
//! the page's old text; these tests read the effect back from the page (a
//! button that writes the form's values into the page), so they fail when
//! an action only claims to have worked.

use std::path::{Path, PathBuf};
use std::time::Duration;
use uidrive_atspi::{launch_app, AtspiDriver, LaunchOptions};
use uidrive_core::protocol::{ActParams, Action, ElementId, Node, Role, State, TreeParams};
use uidrive_core::snapshot::View;
use uidrive_core::{expect, App, Driver, ErrorCode, RoleQuery, TextMatch};
use uidrive_x11::Desktop;

const FORM: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Order form</title></head>
<body>
<h1>Order</h1>
<label for="name">Name</label> <input id="name" type="text" value="old">
<label for="code">Code</label> <input id="code" type="text" maxlength="3">
<label><input id="agree" type="checkbox"> Agree</label>
<label for="size">Size</label>
<select id="size"><option>Small</option><option>Medium</option><option>Large</option></select>
<button onclick="document.getElementById('out').textContent = ['Sent', document.getElementById('name').value, document.getElementById('size').value, document.getElementById('agree').checked].join(' ')">Submit</button>
<p id="out">nothing yet</p>
</body></html>
"#;

fn options(desktop: &Desktop) -> LaunchOptions {
    LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(60),
    }
}

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
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The form page and a fresh Firefox profile that opens nothing else.
fn firefox_argv(dir: &TempDir) -> Vec<String> {
    firefox_argv_for(dir, FORM)
}

/// A page of `html` and a fresh Firefox profile that opens nothing else.
fn firefox_argv_for(dir: &TempDir, html: &str) -> Vec<String> {
    let page = dir.path().join("form.html");
    std::fs::write(&page, html).unwrap();
    let profile = dir.path().join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(
        profile.join("user.js"),
        "user_pref(\"browser.aboutwelcome.enabled\", false);\n\
         user_pref(\"datareporting.policy.firstRunURL\", \"\");\n\
         user_pref(\"browser.startup.homepage_override.mstone\", \"ignore\");\n",
    )
    .unwrap();
    vec![
        "firefox-esr".into(),
        "--new-instance".into(),
        "--profile".into(),
        profile.display().to_string(),
        format!("file://{}", page.display()),
    ]
}

fn launch(desktop: &Desktop, argv: &[String]) -> App {
    launch_app(argv, &options(desktop)).unwrap_or_else(|e| panic!("{} launches: {e}", argv[0]))
}

#[test]
fn firefox_form_actions_land_in_the_page() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("firefox-form");
    let app = launch(&desktop, &firefox_argv(&dir));
    form_actions_land_in_the_page(&app);
    app.close().unwrap();
}

#[test]
fn chromium_form_actions_land_in_the_page() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("chromium-form");
    let page = dir.path().join("form.html");
    std::fs::write(&page, FORM).unwrap();
    let argv: Vec<String> = vec![
        "chromium".into(),
        "--force-renderer-accessibility".into(),
        "--no-sandbox".into(),
        format!("--user-data-dir={}", dir.path().join("profile").display()),
        "--no-first-run".into(),
        "--disable-gpu".into(),
        format!("file://{}", page.display()),
    ];
    let app = launch(&desktop, &argv);
    form_actions_land_in_the_page(&app);
    app.close().unwrap();
}

/// Fills the form page, reads the page's own account of it, then checks
/// that failures are failures.
fn form_actions_land_in_the_page(app: &App) {
    // The page loads after the window shows.
    app.set_timeouts(uidrive_core::Timeouts {
        action: Duration::from_secs(20),
        expect: Duration::from_secs(20),
    });
    let name = app.get_by_role(Role::TextField, RoleQuery::name(TextMatch::exact("Name")));
    expect(&name)
        .to_have_value(TextMatch::exact("old"))
        .unwrap();
    name.fill("Ada").unwrap();
    expect(&name)
        .to_have_value(TextMatch::exact("Ada"))
        .unwrap();
    name.type_text(" L").unwrap();
    expect(&name)
        .to_have_value(TextMatch::exact("Ada L"))
        .unwrap();

    let agree = app.get_by_role(Role::CheckBox, RoleQuery::name(TextMatch::exact("Agree")));
    agree.check().unwrap();
    expect(&agree).to_be_checked().unwrap();

    let size = app.get_by_role(Role::ComboBox, RoleQuery::name(TextMatch::exact("Size")));
    size.select_option(TextMatch::exact("Large")).unwrap();

    // The page itself says what it holds.
    app.get_by_role(Role::Button, RoleQuery::name(TextMatch::exact("Submit")))
        .click()
        .unwrap();
    expect(&app.get_by_text(TextMatch::exact("Sent Ada L Large true")))
        .to_be_visible()
        .unwrap();

    // An option that is not there fails, and leaves no popup open.
    let err = size
        .with_timeout(Duration::from_secs(3))
        .select_option(TextMatch::exact("Huge"))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement, "{err}");
    assert!(err.message.contains("\"Large\""), "{}", err.message);
    let tree = app.tree(None).unwrap();
    let open: Vec<_> = tree
        .nodes
        .iter()
        .filter(|n| n.role == Role::ComboBox && n.has_state(&State::Expanded))
        .collect();
    assert!(open.is_empty(), "a popup stayed open: {open:?}");
    // "Medium" shows only in an open popup: it is neither chosen nor asked for.
    let medium = app.get_by_role(Role::MenuItem, RoleQuery::name(TextMatch::exact("Medium")));
    expect(&medium).to_be_hidden().unwrap();

    // Text the field refuses (it takes three characters) is a failure that
    // says what the field reads, not a success.
    let code = app.get_by_role(Role::TextField, RoleQuery::name(TextMatch::exact("Code")));
    let err = code.fill("abcdef").unwrap_err();
    assert_eq!(err.code, ErrorCode::Failed, "{err}");
    assert!(err.message.contains("`abc`"), "{}", err.message);
}

#[test]
fn firefox_protocol_set_value_and_insert_text_change_the_page() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("firefox-act");
    let (driver, mut child) = AtspiDriver::launch(&firefox_argv(&dir), &options(&desktop))
        .unwrap_or_else(|e| panic!("firefox launches: {e}"));
    let field = wait_for_node(&driver, |n| {
        n.role == Role::TextField && n.label.as_deref() == Some("Name")
    });
    // The protocol's own act, as any client of `uidrive serve` sends it.
    driver
        .act(&ActParams::on(field, Action::SetValue).with_text("Grace"))
        .unwrap();
    assert_eq!(value_of(&driver, field), "Grace");
    driver
        .act(&ActParams::on(field, Action::InsertText).with_text("!"))
        .unwrap();
    assert_eq!(value_of(&driver, field), "Grace!");
    let _ = child.kill();
    let _ = child.wait();
}

/// Labels that hold their controls, as the compat suite's form has them.
const LABELS: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Labels</title></head>
<body>
<label>Name <input id="name" type="text" aria-label="Name"></label>
<label><input id="gift" type="checkbox"> Gift wrap</label>
<label>Size <select id="size" aria-label="Size"><option>Small</option><option>Large</option></select></label>
</body></html>
"#;

/// A label's text holds an object mark where its control is (Gecko); its
/// value is the text with what that control shows there: an entry's text,
/// a combo box's chosen option, nothing for a check box. Not the control's
/// name, which is the label's own ("Gift wrap Gift wrap" where the screen
/// shows "Gift wrap", "Size Size" where it shows "Size Small").
#[test]
fn firefox_labels_read_what_their_controls_show() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("firefox-labels");
    let app = launch(&desktop, &firefox_argv_for(&dir, LABELS));
    app.set_timeouts(uidrive_core::Timeouts {
        action: Duration::from_secs(20),
        expect: Duration::from_secs(20),
    });
    // The label is the control's parent (its own name changes with what
    // the control shows: Gecko names it from its text).
    let label_value = |control: &Role, name: &str| -> Option<String> {
        let tree = app.tree(None).ok()?;
        let control = tree
            .nodes
            .iter()
            .find(|n| n.role == *control && n.label.as_deref() == Some(name))?;
        let label = tree.node(control.parent?)?;
        (label.role == Role::Text).then(|| label.value.as_deref().unwrap_or("").trim().to_string())
    };
    let wait_for = |control: Role, name: &str, want: &str| {
        let started = std::time::Instant::now();
        let mut last = None;
        while started.elapsed() < Duration::from_secs(30) {
            last = label_value(&control, name);
            if last.as_deref() == Some(want) {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("the label of {name:?} reads {last:?}, the screen shows {want:?}");
    };
    wait_for(Role::CheckBox, "Gift wrap", "Gift wrap");
    wait_for(Role::TextField, "Name", "Name");
    wait_for(Role::ComboBox, "Size", "Size Small");

    let name = app.get_by_role(Role::TextField, RoleQuery::name(TextMatch::exact("Name")));
    name.fill("Ada").unwrap();
    wait_for(Role::TextField, "Name", "Name Ada");
    let size = app.get_by_role(Role::ComboBox, RoleQuery::name(TextMatch::exact("Size")));
    size.select_option(TextMatch::exact("Large")).unwrap();
    wait_for(Role::ComboBox, "Size", "Size Large");
    app.close().unwrap();
}

fn wait_for_node(driver: &AtspiDriver, found: impl Fn(&Node) -> bool) -> ElementId {
    let started = std::time::Instant::now();
    loop {
        if let Ok(tree) = driver.tree(&TreeParams::default()) {
            if let Some(node) = tree.nodes.iter().find(|n| found(n)) {
                return node.id;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the page's field did not show"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn value_of(driver: &AtspiDriver, id: ElementId) -> String {
    let tree = driver.tree(&TreeParams::default()).unwrap();
    tree.node(id)
        .and_then(|n| n.value.clone())
        .unwrap_or_default()
}

#[test]
fn firefox_hidden_menu_bar_says_so() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("firefox-menu");
    let app = launch(&desktop, &firefox_argv(&dir));
    let err = app
        .menu(None, vec!["File".into(), "New Tab".into()])
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.message.contains("hidden"), "{}", err.message);
    assert!(err.suggestion.contains("F10"), "{}", err.suggestion);
    app.close().unwrap();
}

/// Firefox answers `GetActions` with one string in every place and crashed on
/// the items of an open menu: reading them again and again leaves it alive,
/// and an item's press action is there under its real name.
#[test]
fn firefox_reads_of_an_open_menu_leave_it_alive() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let dir = TempDir::new("firefox-open-menu");
    let app = launch(&desktop, &firefox_argv(&dir));
    // An F10 pressed while Firefox still loads its page can open nothing
    // (1 run in 6 of this suite: the menu bar stayed hidden, and a second
    // F10 opened it), so the key waits for the page and a quiet window.
    let heading = app.get_by_role(Role::Heading, TextMatch::exact("Order"));
    expect(&heading)
        .with_timeout(Duration::from_secs(30))
        .to_be_visible()
        .expect("the page loads");
    app.idle(None, None)
        .expect("Firefox settles once the page is shown");
    app.keyboard()
        .press("F10")
        .expect("F10 opens the File menu");
    let new_tab = app.get_by_role(Role::MenuItem, TextMatch::exact("New Tab"));
    for _ in 0..3 {
        expect(&new_tab).to_be_visible().unwrap();
        let tree = app.tree(None).expect("the window reads with its menu open");
        let item = tree
            .nodes
            .iter()
            .find(|n| n.role == Role::MenuItem && n.label.as_deref() == Some("New Tab"))
            .expect("New Tab is in the tree");
        assert!(item.has_action(&Action::Press), "{item:?}");
    }
    app.keyboard().press("Escape").unwrap();
    app.close().unwrap();
}

#[test]
fn mousepad_disabled_menu_item_says_it_is_disabled() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let app = launch(&desktop, &["mousepad".to_string()]);
    // With nothing selected there is nothing to copy. (Mousepad brings its
    // items' states up to date as the menu opens: the walk opens it to see.)
    let err = app
        .menu(None, vec!["Edit".into(), "Copy".into()])
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Failed, "{err}");
    assert!(
        err.message.contains("`Edit > Copy` is disabled"),
        "{}",
        err.message
    );
    // The menu opened to look is closed again.
    let copy = app.get_by_role(Role::MenuItem, RoleQuery::name(TextMatch::exact("Copy")));
    expect(&copy).to_be_hidden().unwrap();

    // Once there is a selection, the same item is chosen.
    app.get_by_role(Role::TextField, RoleQuery::any())
        .first()
        .type_text("hello")
        .unwrap();
    app.menu(None, vec!["Edit".into(), "Select All".into()])
        .unwrap();
    app.menu(None, vec!["Edit".into(), "Copy".into()]).unwrap();
    app.close().unwrap();
}

#[test]
fn gnome_text_editor_snapshot_keeps_focus_and_open_menu_items() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let app = launch(&desktop, &["gnome-text-editor".to_string()]);
    let snap = || {
        let snapshot = app.snapshot(None).unwrap();
        snapshot.render(&View::interactive()).unwrap()
    };
    // The editor has the focus when it opens; reading settles first.
    expect(&app.get_by_role(Role::TextField, RoleQuery::any()).first())
        .to_be_focused()
        .unwrap();
    let lines = snap();
    assert!(
        lines
            .lines()
            .any(|l| l.contains("[textField]") && l.contains("focused")),
        "the focused editor is missing:\n{lines}"
    );

    // Its menus are behind buttons, and the error says which.
    let err = app
        .menu(None, vec!["File".into(), "Open".into()])
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement, "{err}");
    assert!(err.message.contains("no menu bar"), "{}", err.message);
    assert!(err.message.contains("`Menu`"), "{}", err.message);

    // Open the main menu: its items are controls an agent can act on.
    app.get_by_role(Role::Button, RoleQuery::name(TextMatch::exact("Menu")))
        .last()
        .click()
        .unwrap();
    expect(&app.get_by_role(
        Role::MenuItem,
        RoleQuery::name(TextMatch::exact("New Window")),
    ))
    .to_be_visible()
    .unwrap();
    let lines = snap();
    for item in ["\"New Window\"", "\"Preferences\""] {
        assert!(
            lines
                .lines()
                .any(|l| l.contains("[menuItem]") && l.contains(item)),
            "the open menu's item {item} is missing:\n{lines}"
        );
    }
    let _ = app.driver().input(&uidrive_core::protocol::InputParams {
        window: None,
        events: vec![uidrive_core::protocol::InputEvent::Key {
            key: "Escape".parse().unwrap(),
        }],
        hold: false,
    });
    app.close().unwrap();
}
