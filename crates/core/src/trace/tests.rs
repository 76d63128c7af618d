//! Traces of the in-memory demo app: what a run records, what a trace reads
//! back as, and what each view shows.

use super::*;
use crate::memory::MemoryDriver;
use crate::protocol::Role;
use crate::{expect, App, Timeouts};
use std::time::Duration;

fn app() -> App {
    let app = App::new(Arc::new(MemoryDriver::new()));
    app.set_timeouts(Timeouts {
        action: Duration::from_millis(300),
        expect: Duration::from_millis(300),
    });
    app
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("uidrive-trace-test-{}-{name}", std::process::id()))
}

#[test]
fn a_run_is_recorded_step_by_step_and_reads_back() {
    let app = app();
    // A locator made before tracing starts records too.
    let add = app.get_by_key("add");
    app.start_tracing(TraceOptions {
        title: Some("counter".into()),
        ..TraceOptions::default()
    })
    .unwrap();
    add.click().unwrap();
    app.get_by_key("name").fill("Grace").unwrap();
    let err = expect(&app.get_by_key("count"))
        .to_have_text("Count: 5")
        .unwrap_err();
    let missing = app.get_by_role(Role::Button, "Nope").click().unwrap_err();
    let path = temp("run.zip");
    let summary = app.stop_tracing(Some(&path)).unwrap().unwrap();
    assert_eq!(summary.steps, 4);
    // The in-memory app draws the same picture whatever it shows: kept once.
    assert_eq!(summary.pictures, 1, "{summary:?}");
    assert!(!app.tracing().is_recording());

    let trace = Trace::read(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(trace.head["version"], VERSION);
    assert_eq!(trace.head["title"], "counter");
    let actions: Vec<&str> = trace.steps.iter().map(|s| s.action.as_str()).collect();
    assert_eq!(actions, ["click", "fill", "expect", "click"]);
    let click = &trace.steps[0];
    assert_eq!(click.ok, Some(true));
    assert_eq!(click.route.as_deref(), Some("semantic:press"));
    assert!(click.target.as_ref().unwrap()["bounds"].is_object());
    assert!(click.before.as_ref().unwrap().picture.is_some());
    assert!(
        click.diff.as_deref().unwrap().contains("Count: 1"),
        "{:?}",
        click.diff
    );
    // The count beside the button changed: the trace says so on the click.
    assert!(
        click.effect.as_deref().unwrap().starts_with(
            "confirmed: the window changed: 1 element(s) changed name or state (text \"Count: 1\""
        ),
        "{:?}",
        click.effect
    );
    assert_eq!(trace.steps[1].args["text"], "Grace");
    assert_eq!(
        trace.steps[1].effect.as_deref(),
        Some("confirmed: it reads `Grace`")
    );
    let failed = &trace.steps[2];
    assert_eq!(failed.ok, Some(false));
    assert_eq!(failed.error.as_ref().unwrap()["code"], "assertion_failed");
    assert_eq!(failed.error.as_ref().unwrap()["message"], err.message);
    let last = &trace.steps[3];
    assert_eq!(last.error.as_ref().unwrap()["code"], missing.code.as_str());
    assert!(
        last.rungs.iter().any(|r| r["rung"] == "found"),
        "{:?}",
        last.rungs
    );
    // The frame stop took is the last step's after.
    assert!(last.after.is_some());

    let text = text(&trace);
    assert!(text.contains("1. +"), "{text}");
    assert!(text.contains("error assertion_failed"), "{text}");
    let page = html(&trace);
    assert_eq!(page.matches("<section class=\"step").count(), 4);
    assert_eq!(page.matches("data-status=\"failed\"").count(), 2);
    assert!(page.contains("src=\"data:image/png;base64,"));
    assert!(page.contains("class=\"outline\""));
    assert!(!page.contains("http://") && !page.contains("https://"));
    // The page opens on the first failure (step 3, the expect), not step 1.
    let summary =
        &page[page.find("<section class=\"failure\"").unwrap()..page.find("<nav").unwrap()];
    assert!(summary.contains("Step 3 failed"), "{summary}");
    assert!(summary.contains("href=\"#step-3\""), "{summary}");
    assert!(summary.contains("assertion_failed"), "{summary}");
    assert!(
        summary.contains("<dd class=\"expected\">to have text"),
        "{summary}"
    );
    assert!(summary.contains("<dd class=\"observed\">"), "{summary}");
    assert!(summary.contains("data-which=\"before\"") && summary.contains("data-which=\"after\""));
    // Pictures carry their size, so a deep link is not moved by their decoding.
    assert!(page.contains(" width=\"") && page.contains(" height=\""));
    let _ = fs::remove_file(&path);
}

#[test]
fn unchanged_windows_are_not_captured_again() {
    let app = app();
    app.start_tracing(TraceOptions::default()).unwrap();
    for _ in 0..3 {
        expect(&app.get_by_key("add")).to_be_visible().unwrap();
    }
    let path = temp("same.zip");
    let summary = app.stop_tracing(Some(&path)).unwrap().unwrap();
    assert_eq!(summary.steps, 3);
    assert_eq!(summary.pictures, 1, "{summary:?}");
    let _ = fs::remove_file(&path);
}

#[test]
fn tracing_twice_is_refused_and_stopping_when_off_does_nothing() {
    let app = app();
    assert_eq!(app.stop_tracing(None).unwrap(), None);
    app.start_tracing(TraceOptions::default()).unwrap();
    let err = app.start_tracing(TraceOptions::default()).unwrap_err();
    assert_eq!(err.code, crate::ErrorCode::InvalidRequest);
    assert!(!err.suggestion.is_empty());
    assert_eq!(app.stop_tracing(None).unwrap(), None);
}

#[test]
fn a_suspended_trace_resumes_in_another_app() {
    let dir = temp("staging");
    let first = app();
    first
        .tracing()
        .start_in(&dir, TraceOptions::default())
        .unwrap();
    first.get_by_key("add").click().unwrap();
    first.tracing().suspend().unwrap();
    let second = app();
    second.tracing().resume(&dir).unwrap();
    second.get_by_key("add").click().unwrap();
    let path = temp("resumed.zip");
    let summary = second.stop_tracing(Some(&path)).unwrap().unwrap();
    assert_eq!(summary.steps, 2);
    let trace = Trace::read(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(trace.steps[1].id, 2);
    assert!(!dir.exists());
    let _ = fs::remove_file(&path);
}

#[test]
fn a_trace_keeps_the_apps_output_and_shows_it_by_the_failure() {
    let app = app();
    let written = Arc::new(Mutex::new(String::from("first line\n")));
    let source = written.clone();
    app.tracing().set_output(Arc::new(move || {
        vec![
            Output {
                source: "counter (pid 7)".into(),
                stream: "stderr".into(),
                text: source.lock().unwrap().clone(),
            },
            Output {
                source: "counter (pid 7)".into(),
                stream: "stdout".into(),
                text: String::new(),
            },
        ]
    }));
    app.start_tracing(TraceOptions::default()).unwrap();
    let _ = expect(&app.get_by_key("count"))
        .to_have_text("Count: 5")
        .unwrap_err();
    // Read when the trace is written, not when the source was set.
    written
        .lock()
        .unwrap()
        .push_str("Gtk-WARNING: the <widget> & the rest\n");
    let path = temp("output.zip");
    app.stop_tracing(Some(&path)).unwrap().unwrap();
    let trace = Trace::read(&fs::read(&path).unwrap()).unwrap();
    let _ = fs::remove_file(&path);
    // An empty stream is left out.
    assert_eq!(trace.outputs.len(), 1, "{:?}", trace.outputs);
    let stderr = &trace.outputs[0];
    assert_eq!(stderr.stream, "stderr");
    assert_eq!(stderr.source, "counter (pid 7)");
    assert_eq!(
        stderr.text,
        "first line\nGtk-WARNING: the <widget> & the rest\n"
    );
    assert_eq!(stderr.omitted, 0);
    let page = html(&trace);
    let failure = page.split("<main").next().unwrap();
    assert!(
        failure.contains("stderr of counter (pid 7)")
            && failure.contains("Gtk-WARNING: the &lt;widget&gt; &amp; the rest"),
        "the output is in the failure's box: {failure}"
    );
    assert!(text(&trace).contains("# stderr of counter (pid 7)\n  | first line\n"));

    // A trace that is dropped reads nothing; one without a source has no output.
    let quiet = self::app();
    quiet.start_tracing(TraceOptions::default()).unwrap();
    let path = temp("quiet.zip");
    quiet.stop_tracing(Some(&path)).unwrap();
    let trace = Trace::read(&fs::read(&path).unwrap()).unwrap();
    let _ = fs::remove_file(&path);
    assert!(trace.outputs.is_empty());
}

#[test]
fn a_long_output_keeps_its_end() {
    let mut text = String::new();
    for n in 0..20_000 {
        text.push_str(&format!("line {n} é\n"));
    }
    let event = output_event(&Output {
        source: "app".into(),
        stream: "stdout".into(),
        text: text.clone(),
    });
    let kept = event["text"].as_str().unwrap();
    assert!(kept.len() <= OUTPUT_KEPT, "{}", kept.len());
    assert!(
        kept.starts_with("line "),
        "cut at a line's start: {:?}",
        &kept[..20]
    );
    assert!(kept.ends_with("line 19999 é\n"));
    assert_eq!(
        event["omitted"].as_u64().unwrap() as usize + kept.len(),
        text.len()
    );
    assert_eq!(event["bytes"].as_u64().unwrap() as usize, text.len());
}
