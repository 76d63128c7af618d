//! Browsers launched on a headless desktop with no profile prepared open on
//! the page they are given, in one tab: uidrive gives them a fresh profile
//! of their own with the first-run, welcome, privacy-notice and
//! default-browser pages off (crates/facade/src/browser.rs). Before, Firefox
//! showed "Profile Missing" and then a privacy tab over the page.

use std::time::Duration;
use uidrive_core::protocol::{Role, Tree};
use uidrive_core::TextMatch;
use uidrive_facade::{Desktop, HeadlessOptions, LaunchOptions};

const TITLE: &str = "uidrive fresh profile page";

/// A page of its own on disk, opened as a file:// address.
fn page() -> String {
    let dir = std::env::temp_dir().join(format!("uidrive-browsers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("page.html");
    std::fs::write(
        &path,
        format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{TITLE}</title></head>\
             <body><h1>Hello from a local page</h1><button>Go</button></body></html>"
        ),
    )
    .unwrap();
    format!("file://{}", path.display())
}

/// The names of the tabs the window's tree shows.
fn tabs(tree: &Tree) -> Vec<String> {
    tree.nodes
        .iter()
        .filter(|n| n.role == Role::Tab)
        .map(|n| n.label.clone().unwrap_or_default())
        .collect()
}

fn opens_on_the_page_alone(desktop: &Desktop, browser: &str, url: &str) {
    let argv = vec![browser.to_string(), url.to_string()];
    let options = LaunchOptions {
        timeout: Some(Duration::from_secs(120)),
        ..LaunchOptions::default()
    };
    let app = desktop
        .launch(&argv, &options)
        .unwrap_or_else(|e| panic!("{browser} launches: {e}"));
    let window = app
        .wait_for_window(&TextMatch::substring(TITLE), Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("{browser} shows the page: {e}"));
    let windows = app.windows().unwrap().windows;
    assert_eq!(
        windows.first().map(|w| w.id),
        Some(window.id),
        "{browser}: the page's window is its first: {windows:?}"
    );
    assert!(
        window.title.starts_with(TITLE),
        "{browser}: the window is titled by the page: {:?}",
        window.title
    );
    // Whatever a first run would open comes as the browser settles: read the tabs after.
    let _ = app.idle(Some(window.id), Some(Duration::from_secs(5)));
    let tree = app.tree(Some(window.id)).unwrap();
    assert_eq!(
        tabs(&tree),
        [TITLE],
        "{browser}: one tab, the page's (its windows: {windows:?})"
    );
    uidrive_facade::close(&app).unwrap();
}

#[test]
fn firefox_and_chromium_open_on_the_page_with_no_first_run_tab() {
    let desktop = uidrive_facade::headless(&HeadlessOptions::default()).expect("a desktop");
    let url = page();
    let mut tried = 0;
    for browser in ["firefox-esr", "chromium"] {
        // Both are in scripts/install-deps.sh; a machine without them fails here, loudly.
        assert!(
            std::process::Command::new("sh")
                .args(["-c", &format!("command -v {browser}")])
                .output()
                .unwrap()
                .status
                .success(),
            "{browser} is not installed (scripts/install-deps.sh installs it)"
        );
        opens_on_the_page_alone(&desktop, browser, &url);
        tried += 1;
    }
    assert_eq!(tried, 2);
}
