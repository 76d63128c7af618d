//! `open --trace` on gnome-calculator, then `trace show` as text and as an
//! HTML page that headless Chromium renders: every step in order with its
//! pictures, the failing step marked with its error and suggestion.

use regex::Regex;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn uidrive(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["--session", "tracecli"])
        .args(args)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_RUNTIME_DIR", home)
        .output()
        .expect("uidrive runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(home: &Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = uidrive(home, args);
    assert_eq!(
        code, 0,
        "uidrive {args:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .ok()?;
        found
            .status
            .success()
            .then(|| String::from_utf8_lossy(&found.stdout).trim().to_string())
    })
}

fn dump_dom(browser: &str, page: &Path, profile: &Path) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_traced_session_shows_its_steps_and_its_failure() {
    let home = tempfile::Builder::new()
        .prefix("udtrace")
        .tempdir_in("/tmp")
        .unwrap();
    let home = home.path();
    let trace = home.join("out").join("calc.zip");
    let trace_arg = trace.to_str().unwrap();
    let opened = ok(
        home,
        &[
            "open",
            "--headless",
            "--timeout",
            "60000",
            "--trace",
            trace_arg,
            "--launch",
            "gnome-calculator",
        ],
    );
    assert!(opened.contains("tracing to"), "{opened}");
    for key in ["7", "×", "6", "="] {
        ok(home, &["press", &format!("role=button name=\"{key}\"")]);
    }
    let (code, _, stderr) = uidrive(
        home,
        &[
            "--action-timeout",
            "1000",
            "press",
            "role=button name=\"Nope\"",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    let closed = ok(home, &["close"]);
    assert!(closed.contains("wrote the trace"), "{closed}");
    assert!(trace.exists());

    let text = ok(home, &["trace", "show", trace_arg]);
    let steps: Vec<String> = Regex::new(r"(?m)^\s+\d+\. \+\d+ ms (\w+) ")
        .unwrap()
        .captures_iter(&text)
        .map(|c| c[1].to_string())
        .collect();
    assert_eq!(steps.len(), 5, "{text}");
    assert!(text.contains("error no_element"), "{text}");
    assert!(text.contains("suggestion:"), "{text}");
    assert!(
        text.contains("value=\"42\""),
        "the diffs show the result: {text}"
    );
    // On the step that caused it: the calculator works `=` out a moment after
    // the press, and the frame after a step waits for that late work (issue
    // 28: the `=` step said `no changes` and the result came under the next).
    let equals = text
        .split_once("\n  4. ")
        .and_then(|(_, rest)| rest.split("\n  5. ").next())
        .expect("a fourth step");
    assert!(
        equals.contains("value=\"42\""),
        "the `=` step's diff shows 42:\n{equals}\n--- whole trace:\n{text}"
    );
    assert!(equals.contains("confirmed: "), "its effect: {equals}");

    // A file that is no trace is refused with a code and a suggestion.
    std::fs::write(home.join("not.zip"), b"hello").unwrap();
    let (code, _, stderr) = uidrive(
        home,
        &["trace", "show", home.join("not.zip").to_str().unwrap()],
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("invalid_request") && stderr.contains("hint:"),
        "{stderr}"
    );

    let Some(browser) = chromium() else {
        eprintln!("Chromium is not installed: the page is not rendered");
        return;
    };
    let page = home.join("trace.html");
    ok(
        home,
        &["trace", "show", trace_arg, "--html", page.to_str().unwrap()],
    );
    let dom = dump_dom(&browser, &page, &home.join("profile"));
    let sections: Vec<(String, u32)> = Regex::new(r#"<section class="step (\w+)" id="step-(\d+)""#)
        .unwrap()
        .captures_iter(&dom)
        .map(|c| (c[1].to_string(), c[2].parse().unwrap()))
        .collect();
    let expected: Vec<(String, u32)> = (1..=5)
        .map(|n| (if n == 5 { "failed" } else { "ok" }.to_string(), n))
        .collect();
    assert_eq!(sections, expected);
    let shown: BTreeSet<String> = Regex::new(r#"data-picture="([^"]+)""#)
        .unwrap()
        .captures_iter(&dom)
        .map(|c| c[1].to_string())
        .collect();
    let stored: BTreeSet<String> = Regex::new(r"resources/frame-\d+\.png")
        .unwrap()
        .find_iter(&String::from_utf8_lossy(&std::fs::read(&trace).unwrap()))
        .map(|m| m.as_str().to_string())
        .collect();
    assert_eq!(shown, stored, "every capture shows");
    let failed = &dom[dom.find("id=\"step-5\"").unwrap()..];
    assert!(failed.contains("no_element") && failed.contains("class=\"suggestion\""));
}
