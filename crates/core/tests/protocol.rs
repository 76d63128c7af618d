//! The protocol's own examples parse into uidrive's types and write back as equal JSON;
//! what a newer server adds is kept; what a client sends is checked.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use uidrive_core::protocol::wire::{decode_params, parse_answer, parse_request};
use uidrive_core::protocol::*;
use uidrive_core::ErrorCode;

fn round_trip<T: Serialize + DeserializeOwned>(value: &Value) -> Value {
    let typed: T = serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{value}: {e}"));
    serde_json::to_value(typed).unwrap()
}

fn params_round_trip(method: &str, params: &Value) -> Value {
    match method {
        "tree" | "capture" => round_trip::<WindowParams>(params),
        "act" => round_trip::<ActParams>(params),
        "input" => round_trip::<InputParams>(params),
        "menu" => round_trip::<MenuParams>(params),
        "eval" => round_trip::<EvalParams>(params),
        "idle" => round_trip::<IdleParams>(params),
        other => panic!("no params type for {other}"),
    }
}

fn result_round_trip(method: &str, result: &Value) -> Value {
    match method {
        "windows" => round_trip::<WindowList>(result),
        "tree" => round_trip::<Tree>(result),
        "eval" => round_trip::<EvalResult>(result),
        other => panic!("no result type for {other}"),
    }
}

#[test]
fn every_example_of_the_protocol_round_trips() {
    let examples = include_str!("fixtures/protocol_examples.jsonl");
    let mut seen = 0;
    for line in examples.lines() {
        let example: Value = serde_json::from_str(line).unwrap();
        let method = example["method"].as_str().unwrap();
        let wire = &example["line"];
        let bytes = serde_json::to_vec(wire).unwrap();
        if wire.get("method").is_some() {
            let request = parse_request(&bytes).unwrap();
            if let Some(params) = &request.params {
                assert_eq!(&params_round_trip(method, params), params, "{line}");
            }
        } else {
            let (_, outcome) = parse_answer(&bytes).unwrap();
            match outcome {
                Ok(result) => assert_eq!(result_round_trip(method, &result), result, "{line}"),
                Err(err) => assert_eq!(err.code, ErrorCode::NoWindow),
            }
        }
        seen += 1;
    }
    assert_eq!(seen, 13);
}

#[test]
fn every_node_field_round_trips() {
    let node = json!({
        "id": "18446744073709551615", "parent": "1", "role": "slider", "key": 7,
        "label": "Volume", "value": "70", "placeholder": "level", "description": "loudness",
        "bounds": {"x": 1.5, "y": 2, "width": 3, "height": 4},
        "states": ["focusable", "horizontal", "invalid"], "actions": ["increment", "setValue"],
        "min": 0, "max": 100, "now": 70, "step": 0.5, "selection": [1, 2],
        "level": 2, "posInSet": 3, "setSize": 9, "rowCount": 10, "colCount": 4,
        "rowIndex": 2, "colIndex": 1, "rowSpan": 2, "colSpan": 3, "current": "page",
        "autoComplete": "list", "roleDescription": "knob", "hasPopup": "dialog",
        "controls": ["2"], "describedBy": ["3", "4"], "errorMessage": ["5"],
        "keyShortcuts": "Ctrl+K Alt+V", "webView": true
    });
    assert_eq!(round_trip::<Node>(&node), node);
    let keyed = json!({"id": "1", "role": "switch", "key": true, "current": true});
    assert_eq!(round_trip::<Node>(&keyed), keyed);
}

#[test]
fn what_a_newer_server_adds_is_kept() {
    let node = json!({"id": "9", "role": "hologram", "states": ["glowing"], "actions": ["levitate"], "aura": {"hue": 3}});
    let typed: Node = serde_json::from_value(node.clone()).unwrap();
    assert_eq!(typed.role, Role::Other("hologram".into()));
    assert_eq!(typed.extra["aura"], json!({"hue": 3}));
    assert_eq!(serde_json::to_value(&typed).unwrap(), node);

    let window = json!({"id": 3, "title": "T", "kind": "popover", "bounds": {"x": 0, "y": 0, "width": 1, "height": 1},
        "contentBounds": {"x": 0, "y": 0, "width": 1, "height": 1}, "focused": false, "visible": true, "screen": 2});
    assert_eq!(round_trip::<Window>(&window), window);
}

#[test]
fn ids_are_64_bit_digit_strings() {
    let err = serde_json::from_value::<Node>(json!({"id": 5, "role": "text"})).unwrap_err();
    assert!(err.to_string().contains("string"), "{err}");
    assert!("12a".parse::<ElementId>().is_err());
    assert!("18446744073709551616"
        .parse::<ElementId>()
        .unwrap_err()
        .contains("64 bits"));
    assert_eq!(
        "18446744073709551615".parse::<ElementId>().unwrap(),
        ElementId(u64::MAX)
    );
}

#[test]
fn every_input_event_type_round_trips() {
    let events = json!([
        {"type": "pointerMove", "x": 1, "y": 2, "mods": ["shift"]},
        {"type": "pointerDown", "x": 1, "y": 2, "button": "right", "clicks": 2, "mods": ["ctrl", "alt"]},
        {"type": "pointerUp", "x": 1, "y": 2, "button": "middle"},
        {"type": "click", "x": 1.25, "y": 2, "clicks": 3, "mods": ["super", "cmdOrCtrl"]},
        {"type": "wheel", "x": 1, "y": 2, "dx": 0, "dy": -120, "precise": true},
        {"type": "keyDown", "key": "Shift+Tab"},
        {"type": "keyUp", "key": "Shift+Tab"},
        {"type": "key", "key": "Enter"},
        {"type": "text", "text": "héllo ✓"}
    ]);
    let params = json!({"window": 1, "events": events});
    assert_eq!(round_trip::<InputParams>(&params), params);
}

#[test]
fn requests_are_checked_before_they_leave_with_the_field_named() {
    let bad = |params: Value| -> String {
        let act: ActParams = decode_params("act", Some(params)).unwrap();
        let err = act.validate().unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        err.message
    };
    assert!(bad(json!({"action": "press"})).contains("act.id"));
    assert!(bad(json!({"id": "1", "key": "k", "action": "press"})).contains("act.key"));
    assert!(bad(json!({"id": "1", "action": "setValue"})).contains("act.text"));
    assert!(bad(json!({"id": "1", "action": "selectText", "from": 3})).contains("act.from"));
    assert!(bad(json!({"id": "1", "action": "fly"})).contains("act.action"));

    let err = decode_params::<ActParams>(
        "act",
        Some(json!({"id": "1", "action": "press", "colour": 1})),
    )
    .unwrap_err();
    assert!(err.message.contains("colour"), "{}", err.message);

    let input: InputParams = decode_params(
        "input",
        Some(json!({"events": [{"type": "click", "x": 1, "y": 1, "clicks": 0}]})),
    )
    .unwrap();
    assert!(input
        .validate()
        .unwrap_err()
        .message
        .contains("input.events[0].clicks"));
    let err = decode_params::<InputParams>(
        "input",
        Some(json!({"events": [{"type": "key", "key": "Ctrl+Nope"}]})),
    )
    .unwrap_err();
    assert!(err.message.contains("Nope"), "{}", err.message);

    let menu = MenuParams {
        window: None,
        path: vec!["File".into(), " ".into()],
    };
    assert!(menu
        .validate()
        .unwrap_err()
        .message
        .contains("menu.path[1]"));
}
