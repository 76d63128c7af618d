//! Reading a trace back, and showing it: as text for terminals and agents,
//! and as one self-contained HTML page (no scripts from elsewhere, no
//! network, the pictures inlined) for a person.

use super::{zip, EVENTS, VERSION};
use crate::error::{Error, Result};
use base64::Engine as _;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A window as a frame of the trace saw it.
#[derive(Debug, Clone, Default)]
pub struct TraceFrame {
    pub id: u64,
    pub lines: Vec<String>,
    /// The picture's name inside the trace, if one was taken or kept.
    pub picture: Option<String>,
    pub picture_size: Option<(f64, f64)>,
    pub window_bounds: Option<Value>,
    /// Why the window could not be read or captured.
    pub error: Option<String>,
}

/// One step as recorded.
#[derive(Debug, Clone, Default)]
pub struct TraceStep {
    /// The step's number, from 1.
    pub id: u64,
    /// What the step did, as `click` or `expect`.
    pub action: String,
    /// The locator it acted on, as text; `None` for a step on the app.
    pub locator: Option<String>,
    /// The step's arguments (`null` when it has none).
    pub args: Value,
    /// Milliseconds from the trace's start.
    pub start: u64,
    /// How long it took, in milliseconds; `None` while it never ended.
    pub duration: Option<u64>,
    /// `None` while the step never ended (the process stopped inside it).
    pub ok: Option<bool>,
    /// The route the action took, as `semantic:press`.
    pub route: Option<String>,
    /// What the tree showed of the action: `confirmed: ...` or `unverifiable: ...`.
    pub effect: Option<String>,
    /// The error it ended with, as its JSON (`code`, `message`, `suggestion`).
    pub error: Option<Value>,
    /// What the ladder waited on, in order.
    pub rungs: Vec<Value>,
    /// The element it acted on, as the trace's `target` event holds it.
    pub target: Option<Value>,
    /// The window as it was before the step.
    pub before: Option<TraceFrame>,
    /// The window as it was after the step (the next step's frame before, when none was taken).
    pub after: Option<TraceFrame>,
    /// What changed in the window's snapshot across the step.
    pub diff: Option<String>,
}

/// What a launched app wrote on one stream, as the trace kept it.
#[derive(Debug, Clone, Default)]
pub struct TraceOutput {
    /// Who wrote it, as `gnome-calculator (pid 4242)`.
    pub source: String,
    /// `stdout` or `stderr`.
    pub stream: String,
    /// What the trace kept: the end of it.
    pub text: String,
    /// How many bytes before `text` were left out.
    pub omitted: u64,
}

/// A trace read back from its zip.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The trace's first event: its version, title and start.
    pub head: Value,
    /// The steps, in order.
    pub steps: Vec<TraceStep>,
    /// The pictures, by their name inside the zip.
    pub pictures: HashMap<String, Vec<u8>>,
    /// The launched app's captured stdout and stderr, when it was captured.
    pub outputs: Vec<TraceOutput>,
}

impl Trace {
    /// Reads a trace zip (as `tracing.stop` writes it).
    pub fn read(bytes: &[u8]) -> Result<Trace> {
        let mut events = None;
        let mut pictures = HashMap::new();
        for (name, data) in zip::read(bytes)? {
            if name == EVENTS {
                events = Some(data);
            } else {
                pictures.insert(name, data);
            }
        }
        let events = events.ok_or_else(|| {
            Error::invalid_request(format!(
                "this zip holds no {EVENTS}: it is not a uidrive trace"
            ))
        })?;
        let mut trace = Trace {
            pictures,
            ..Trace::default()
        };
        let mut frames: HashMap<u64, TraceFrame> = HashMap::new();
        let mut at: HashMap<u64, usize> = HashMap::new();
        for (n, line) in String::from_utf8_lossy(&events).lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let event: Value = serde_json::from_str(line)
                .map_err(|e| Error::invalid_request(format!("{EVENTS} line {}: {e}", n + 1)))?;
            let num = |key: &str| event.get(key).and_then(Value::as_u64);
            let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_string);
            match event.get("type").and_then(Value::as_str) {
                Some("trace") => {
                    let version = num("version").unwrap_or(0);
                    if version > VERSION as u64 {
                        return Err(Error::unsupported(format!(
                            "this trace is version {version}; this uidrive reads up to version {VERSION}"
                        ))
                        .with_suggestion("show it with a newer uidrive"));
                    }
                    trace.head = event.clone();
                }
                Some("step") => {
                    let id = num("step").unwrap_or(0);
                    at.insert(id, trace.steps.len());
                    trace.steps.push(TraceStep {
                        id,
                        action: text("action").unwrap_or_default(),
                        locator: text("locator"),
                        args: event.get("args").cloned().unwrap_or(Value::Null),
                        start: num("start").unwrap_or(0),
                        ..TraceStep::default()
                    });
                }
                Some("frame") => {
                    let id = num("frame").unwrap_or(0);
                    let size = event
                        .get("pictureSize")
                        .and_then(Value::as_array)
                        .and_then(|s| Some((s.first()?.as_f64()?, s.get(1)?.as_f64()?)));
                    let error = event
                        .get("error")
                        .or_else(|| event.get("captureError"))
                        .and_then(|e| e.get("message"))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let frame = TraceFrame {
                        id,
                        lines: event
                            .get("lines")
                            .and_then(Value::as_array)
                            .map(|l| {
                                l.iter()
                                    .filter_map(|s| s.as_str().map(str::to_string))
                                    .collect()
                            })
                            .unwrap_or_default(),
                        picture: text("picture"),
                        picture_size: size,
                        window_bounds: event.get("windowBounds").cloned(),
                        error,
                    };
                    if let Some(step) = num("step").and_then(|s| at.get(&s)) {
                        trace.steps[*step].before = Some(frame.clone());
                    }
                    frames.insert(id, frame);
                }
                Some("after") => {
                    if let Some(step) = num("step").and_then(|s| at.get(&s)) {
                        let step = &mut trace.steps[*step];
                        step.after = num("frame").and_then(|f| frames.get(&f)).cloned();
                        step.diff = text("diff");
                    }
                }
                Some("rung") => {
                    if let Some(step) = num("step").and_then(|s| at.get(&s)) {
                        trace.steps[*step].rungs.push(event.clone());
                    }
                }
                Some("target") => {
                    if let Some(step) = num("step").and_then(|s| at.get(&s)) {
                        trace.steps[*step].target = Some(event.clone());
                    }
                }
                Some("end") => {
                    if let Some(step) = num("step").and_then(|s| at.get(&s)) {
                        let step = &mut trace.steps[*step];
                        step.duration = num("duration");
                        step.ok = event.get("ok").and_then(Value::as_bool);
                        step.route = text("route");
                        step.effect = effect_of(&event);
                        step.error = event.get("error").cloned();
                    }
                }
                Some("output") => trace.outputs.push(TraceOutput {
                    source: text("source").unwrap_or_default(),
                    stream: text("stream").unwrap_or_default(),
                    text: text("text").unwrap_or_default(),
                    omitted: num("omitted").unwrap_or(0),
                }),
                // Events of later versions that this one does not know are skipped.
                _ => {}
            }
        }
        // The frame after a step is the frame before the next one, when no "after" came.
        for i in 0..trace.steps.len() {
            if trace.steps[i].after.is_none() {
                if let Some(next) = trace.steps.get(i + 1).and_then(|s| s.before.clone()) {
                    trace.steps[i].after = Some(next);
                }
            }
        }
        Ok(trace)
    }
}

/// A step's call as a person reads it: `fill get_by_key("name") text="Ada"`,
/// `expect get_by_role("textField") to have value "42"`.
fn call_of(step: &TraceStep) -> String {
    let mut args = String::new();
    if let Value::Object(map) = &step.args {
        for (key, value) in map {
            match (key.as_str(), value) {
                ("expected", Value::String(what)) => args.push_str(&format!(" {what}")),
                (_, Value::String(text)) => args.push_str(&format!(" {key}={text:?}")),
                _ => args.push_str(&format!(" {key}={value}")),
            }
        }
    }
    match &step.locator {
        Some(locator) => format!("{} {locator}{args}", step.action),
        None => format!("{}{args}", step.action),
    }
}

fn status_of(step: &TraceStep) -> &'static str {
    match step.ok {
        Some(true) => "ok",
        Some(false) => "failed",
        None => "unfinished",
    }
}

fn error_parts(error: &Value) -> (String, String, String) {
    let get = |k: &str| {
        error
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    (get("code"), get("message"), get("suggestion"))
}

/// The steps as text, a line each, with errors, rungs and diffs under them.
pub fn text(trace: &Trace) -> String {
    let mut out = String::new();
    let title = trace.head.get("title").and_then(Value::as_str);
    let _ = writeln!(
        out,
        "# trace v{}{}: {} step{}, {} picture{}",
        trace
            .head
            .get("version")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        title.map(|t| format!(" {t}")).unwrap_or_default(),
        trace.steps.len(),
        if trace.steps.len() == 1 { "" } else { "s" },
        trace.pictures.len(),
        if trace.pictures.len() == 1 { "" } else { "s" },
    );
    for step in &trace.steps {
        let duration = step
            .duration
            .map(|d| format!("{d} ms"))
            .unwrap_or_else(|| "?".into());
        let route = step
            .route
            .as_ref()
            .map(|r| format!(" via {r}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{:>3}. +{} ms {} [{}, {duration}{route}]",
            step.id,
            step.start,
            call_of(step),
            status_of(step)
        );
        for rung in &step.rungs {
            let _ = writeln!(
                out,
                "     waited: {} at +{} ms: {}",
                rung.get("rung").and_then(Value::as_str).unwrap_or("?"),
                rung.get("at").and_then(Value::as_u64).unwrap_or(0),
                rung.get("seen").and_then(Value::as_str).unwrap_or("")
            );
        }
        if let Some(effect) = &step.effect {
            let _ = writeln!(out, "     {effect}");
        }
        if let Some(error) = &step.error {
            let (code, message, suggestion) = error_parts(error);
            let _ = writeln!(out, "     error {code}: {message}");
            if !suggestion.is_empty() {
                let _ = writeln!(out, "     suggestion: {suggestion}");
            }
        }
        if let Some(diff) = step.diff.as_deref().filter(|d| !d.trim().is_empty()) {
            for line in diff.lines() {
                let _ = writeln!(out, "     | {line}");
            }
        }
    }
    for output in &trace.outputs {
        let _ = writeln!(out, "# {}", output_title(output));
        for line in output.text.lines() {
            let _ = writeln!(out, "  | {line}");
        }
    }
    out
}

/// An output's heading: `stderr of gnome-calculator (pid 42)`, and what was left out.
fn output_title(output: &TraceOutput) -> String {
    let mut title = format!("{} of {}", output.stream, output.source);
    if output.omitted > 0 {
        let _ = write!(
            title,
            " (its last part; {} bytes before it left out)",
            output.omitted
        );
    }
    title
}

/// The app's captured output, a block per stream, stderr first (where
/// toolkits say what went wrong).
fn outputs_html(trace: &Trace) -> String {
    let mut outputs: Vec<&TraceOutput> = trace.outputs.iter().collect();
    outputs.sort_by_key(|o| o.stream != "stderr");
    let mut out = String::new();
    for output in outputs {
        let _ = write!(
            out,
            "<details class=\"output\" data-stream=\"{}\" open><summary>{}</summary><pre>{}</pre></details>",
            esc(&output.stream),
            esc(&output_title(output)),
            esc(&output.text)
        );
    }
    out
}

/// The effect an action's end event records, as `confirmed: what was seen`.
fn effect_of(end: &Value) -> Option<String> {
    let outcome = end.get("outcome")?;
    let effect = outcome.get("effect")?.as_str()?;
    let detail = outcome
        .get("observed")
        .or_else(|| outcome.get("checked"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some(format!("{effect}: {detail}"))
}

fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn bounds_of(value: Option<&Value>) -> Option<[f64; 4]> {
    let b = value?;
    Some([
        b.get("x")?.as_f64()?,
        b.get("y")?.as_f64()?,
        b.get("width")?.as_f64()?,
        b.get("height")?.as_f64()?,
    ])
}

/// One picture, with the target's outline placed over it in percentages of the picture.
fn picture(trace: &Trace, frame: &TraceFrame, which: &str, target: Option<[f64; 4]>) -> String {
    let Some(name) = &frame.picture else {
        let why = frame.error.as_deref().unwrap_or("no capture in this trace");
        return format!(
            "<figure class=\"shot none\" data-which=\"{which}\"><figcaption>{which}</figcaption><p>{}</p></figure>",
            esc(why)
        );
    };
    let Some(png) = trace.pictures.get(name) else {
        return format!(
            "<figure class=\"shot none\" data-which=\"{which}\"><figcaption>{which}</figcaption><p>{} is missing from the trace</p></figure>",
            esc(name)
        );
    };
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    let mut outline = String::new();
    let window = bounds_of(frame.window_bounds.as_ref());
    if let (Some([x, y, w, h]), Some([wx, wy, ww, wh])) = (target, window) {
        // The capture shows the window, and a toolkit that draws its own
        // frame adds a margin around it (its shadow) on every side.
        let (pw, ph) = frame.picture_size.unwrap_or((ww, wh));
        if pw > 0.0 && ph > 0.0 {
            let (mx, my) = (((pw - ww) / 2.0).max(0.0), ((ph - wh) / 2.0).max(0.0));
            let left = (x - wx + mx) / pw * 100.0;
            let top = (y - wy + my) / ph * 100.0;
            let _ = write!(
                outline,
                "<div class=\"outline\" style=\"left:{left:.2}%;top:{top:.2}%;width:{:.2}%;height:{:.2}%\"></div>",
                w / pw * 100.0,
                h / ph * 100.0
            );
        }
    }
    // The picture's size up front: the page's layout does not move while the
    // pictures decode, so a deep link (`#step-11`) lands on its step.
    let size = frame
        .picture_size
        .map(|(w, h)| format!(" width=\"{}\" height=\"{}\"", w.round(), h.round()))
        .unwrap_or_default();
    format!(
        "<figure class=\"shot\" data-which=\"{which}\"><figcaption>{which}</figcaption><div class=\"frame\"><img alt=\"{which} step\" data-picture=\"{}\"{size} src=\"data:image/png;base64,{data}\">{outline}</div></figure>",
        esc(name)
    )
}

const STYLE: &str = "
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f4f4f6}
header{background:#24292f;color:#fff;padding:12px 20px}
header h1{font-size:18px;margin:0}
main{display:flex;align-items:flex-start}
nav{position:sticky;top:0;max-height:100vh;overflow:auto;width:320px;flex:none;background:#fff;border-right:1px solid #ddd}
nav ol{list-style:none;margin:0;padding:0}
nav li a{display:block;padding:6px 12px;border-bottom:1px solid #eee;color:inherit;text-decoration:none}
nav li.failed a{background:#ffe5e5;color:#a40000;font-weight:600}
.steps{flex:1;padding:12px 20px;min-width:0}
section.step{background:#fff;border:1px solid #ddd;border-radius:6px;margin:0 0 16px;padding:12px 16px}
section.step.failed{border:2px solid #d00}
section.step h2{font-size:15px;margin:0 0 6px}
.status{display:inline-block;padding:1px 8px;border-radius:9px;font-size:12px;background:#dff5e1;color:#145a1c}
.failed .status{background:#d00;color:#fff}
.error{background:#fff0f0;border-left:4px solid #d00;padding:8px 12px;margin:8px 0}
.shots{display:flex;gap:16px;flex-wrap:wrap}
figure.shot{margin:0;max-width:48%}
figure.shot .frame{position:relative;display:inline-block;line-height:0}
figure.shot img{max-width:100%;height:auto;border:1px solid #ccc}
section.step,section.failure{scroll-margin-top:8px}
section.step:target{box-shadow:0 0 0 3px #0969da}
body:has(section.step:target) section.failure{display:none}
.steps:has(> section.step:target) > section.step:not(:target){display:none}
nav .all{display:block;padding:6px 12px;border-bottom:1px solid #ddd;font-weight:600}
section.failure{background:#fff;border:2px solid #d00;border-radius:6px;margin:12px 20px;padding:12px 16px}
section.failure h2{font-size:16px;margin:0 0 8px;color:#a40000}
section.failure dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:8px 0}
section.failure dt{font-weight:600}
section.failure dd{margin:0;font-family:ui-monospace,monospace;white-space:pre-wrap}
section.passed{border-color:#2da44e}
section.passed h2{color:#145a1c}
.outline{position:absolute;border:2px solid #e0008a;box-shadow:0 0 0 2px rgba(224,0,138,.3);box-sizing:border-box}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:320px;font-size:12px;line-height:1.35}
table.timing td{padding:0 12px 0 0}
details.output summary{font-weight:600;margin-top:8px}
details.output[data-stream=stderr] pre{background:#fff8e6}
";

/// What an assertion's message says it last saw: `last observed X (waited ...)`.
fn last_observed(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("last observed ")?;
    Some(rest.rsplit_once(" (waited ").map_or(rest, |(seen, _)| seen))
}

/// The box at the top of the page: the first failed step's call, error,
/// expected and last observed values, suggestion and pictures, with a link to
/// the step; or a line saying every step passed.
fn failure_summary(trace: &Trace) -> String {
    let Some(step) = trace.steps.iter().find(|s| s.ok == Some(false)) else {
        return format!(
            "<section class=\"failure passed\" id=\"failure\"><h2>{}</h2>{}</section>",
            if trace.steps.is_empty() {
                "no steps recorded"
            } else {
                "every step passed"
            },
            outputs_html(trace)
        );
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<section class=\"failure\" id=\"failure\" data-step=\"{}\"><h2>Step {} failed: <a href=\"#step-{}\">{}</a></h2><dl>",
        step.id,
        step.id,
        step.id,
        esc(&call_of(step))
    );
    let (code, message, suggestion) = step.error.as_ref().map(error_parts).unwrap_or_default();
    let _ = write!(
        out,
        "<dt>error</dt><dd class=\"code\">{}</dd><dt>message</dt><dd class=\"message\">{}</dd>",
        esc(&code),
        esc(&message)
    );
    if let Some(expected) = step.args.get("expected").and_then(Value::as_str) {
        let _ = write!(
            out,
            "<dt>expected</dt><dd class=\"expected\">{}</dd>",
            esc(expected)
        );
    }
    if let Some(seen) = last_observed(&message) {
        let _ = write!(
            out,
            "<dt>last observed</dt><dd class=\"observed\">{}</dd>",
            esc(seen)
        );
    }
    if !suggestion.is_empty() {
        let _ = write!(
            out,
            "<dt>suggestion</dt><dd class=\"suggestion\">{}</dd>",
            esc(&suggestion)
        );
    }
    out.push_str("</dl><div class=\"shots\">");
    let target = bounds_of(step.target.as_ref().and_then(|t| t.get("bounds")));
    if let Some(before) = &step.before {
        out.push_str(&picture(trace, before, "before", target));
    }
    if let Some(after) = &step.after {
        out.push_str(&picture(trace, after, "after", target));
    }
    // What the app said, next to the failure it may explain.
    out.push_str("</div>");
    out.push_str(&outputs_html(trace));
    out.push_str("</section>");
    out
}

/// The trace as one HTML page: a timeline of the steps, and for each its
/// call, timings, the rungs it waited on, its error, the pictures before and
/// after with the element outlined, the snapshot before and the diff after.
pub fn html(trace: &Trace) -> String {
    let title = trace
        .head
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("uidrive trace");
    let failed = trace.steps.iter().filter(|s| s.ok == Some(false)).count();
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\
<title>{}</title><style>{STYLE}</style></head><body>\
<header><h1>{}</h1><div class=\"summary\" data-steps=\"{}\" data-failed=\"{failed}\">{} steps, {failed} failed, trace version {}</div></header>",
        esc(title),
        esc(title),
        trace.steps.len(),
        trace.steps.len(),
        trace.head.get("version").and_then(Value::as_u64).unwrap_or(0)
    );
    // The page opens on what a person came for: the first failure, at the top.
    out.push_str(&failure_summary(trace));
    // A deep link (`#step-11`) shows that step alone beside the step list, at
    // the top of the page: nothing depends on scrolling a long page (which
    // browsers may draw blank) and no script is needed; `#all` shows every step.
    out.push_str(
        "<main id=\"all\"><nav><a class=\"all\" href=\"#all\">all steps</a><ol class=\"timeline\">",
    );
    for step in &trace.steps {
        let _ = write!(
            out,
            "<li class=\"{}\"><a href=\"#step-{}\">{}. {} <small>{}</small></a></li>",
            status_of(step),
            step.id,
            step.id,
            esc(&call_of(step)),
            step.duration.map(|d| format!("{d} ms")).unwrap_or_default()
        );
    }
    out.push_str("</ol></nav><div class=\"steps\">");
    for step in &trace.steps {
        let status = status_of(step);
        let _ = write!(
            out,
            "<section class=\"step {status}\" id=\"step-{}\" data-step=\"{}\" data-status=\"{status}\">\
<h2>{}. {} <span class=\"status\">{status}</span></h2>",
            step.id,
            step.id,
            step.id,
            esc(&call_of(step)),
        );
        let _ = write!(
            out,
            "<table class=\"timing\"><tr><td>start</td><td>+{} ms</td></tr><tr><td>duration</td><td>{}</td></tr>",
            step.start,
            step.duration.map(|d| format!("{d} ms")).unwrap_or_else(|| "did not end".into())
        );
        if let Some(route) = &step.route {
            let _ = write!(
                out,
                "<tr><td>route</td><td class=\"route\">{}</td></tr>",
                esc(route)
            );
        }
        if let Some(effect) = &step.effect {
            let _ = write!(
                out,
                "<tr><td>effect</td><td class=\"effect\">{}</td></tr>",
                esc(effect)
            );
        }
        if let Some(target) = &step.target {
            let element = target.get("element").and_then(Value::as_str).unwrap_or("");
            let rungs: Vec<&str> = target
                .get("rungs")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let _ = write!(
                out,
                "<tr><td>element</td><td>{}</td></tr><tr><td>ladder</td><td>{} held at +{} ms</td></tr>",
                esc(element),
                esc(&rungs.join(", ")),
                target.get("at").and_then(Value::as_u64).unwrap_or(0)
            );
        }
        out.push_str("</table>");
        if !step.rungs.is_empty() {
            out.push_str("<ul class=\"rungs\">");
            for rung in &step.rungs {
                let _ = write!(
                    out,
                    "<li>waited for <b>{}</b> at +{} ms: {}</li>",
                    esc(rung.get("rung").and_then(Value::as_str).unwrap_or("?")),
                    rung.get("at").and_then(Value::as_u64).unwrap_or(0),
                    esc(rung.get("seen").and_then(Value::as_str).unwrap_or(""))
                );
            }
            out.push_str("</ul>");
        }
        if let Some(error) = &step.error {
            let (code, message, suggestion) = error_parts(error);
            let _ = write!(
                out,
                "<div class=\"error\"><div><b>error</b> <code class=\"code\">{}</code></div><div class=\"message\">{}</div>",
                esc(&code),
                esc(&message)
            );
            if !suggestion.is_empty() {
                let _ = write!(
                    out,
                    "<div class=\"suggestion\">suggestion: {}</div>",
                    esc(&suggestion)
                );
            }
            out.push_str("</div>");
        }
        let target = bounds_of(step.target.as_ref().and_then(|t| t.get("bounds")));
        out.push_str("<div class=\"shots\">");
        if let Some(before) = &step.before {
            out.push_str(&picture(trace, before, "before", target));
        }
        if let Some(after) = &step.after {
            out.push_str(&picture(trace, after, "after", target));
        }
        out.push_str("</div>");
        if let Some(before) = step.before.as_ref().filter(|b| !b.lines.is_empty()) {
            let _ = write!(
                out,
                "<details class=\"snapshot\"><summary>snapshot before ({} lines)</summary><pre>{}</pre></details>",
                before.lines.len(),
                esc(&before.lines.join("\n"))
            );
        }
        if let Some(diff) = &step.diff {
            let shown = if diff.trim().is_empty() {
                "(no change)"
            } else {
                diff
            };
            let _ = write!(
                out,
                "<details class=\"diff\" open><summary>diff after</summary><pre>{}</pre></details>",
                esc(shown)
            );
        }
        out.push_str("</section>");
    }
    out.push_str("</div></main></body></html>\n");
    out
}
