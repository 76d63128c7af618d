//! Property tests standing in for a fuzzer: the request and answer parsers take
//! any bytes and any JSON without panicking, and what they accept round-trips.

use proptest::prelude::*;
use serde_json::Value;
use std::sync::Arc;
use uidrive_core::protocol::wire::{encode_answer, parse_answer, parse_request};
use uidrive_core::{call_json, MemoryDriver};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-zA-Z0-9 _:+.-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("window"),
            Just("id"),
            Just("key"),
            Just("action"),
            Just("events"),
            Just("type"),
            Just("press"),
            Just("click"),
            Just("text")
        ]
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("id".to_string()),
                    Just("window".to_string()),
                    Just("action".to_string()),
                    Just("events".to_string()),
                    Just("type".to_string()),
                    Just("x".to_string()),
                    Just("y".to_string()),
                    Just("key".to_string()),
                    Just("text".to_string()),
                    Just("path".to_string()),
                    Just("timeout".to_string()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn parsers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse_request(&bytes);
        let _ = parse_answer(&bytes);
    }

    #[test]
    fn the_server_side_answers_any_params_without_panicking(
        method in prop_oneof![Just("hello"), Just("windows"), Just("tree"), Just("act"), Just("input"),
                              Just("menu"), Just("capture"), Just("eval"), Just("idle"), Just("zap")],
        params in json_value(),
    ) {
        let driver = Arc::new(MemoryDriver::new());
        let params = match params { Value::Object(_) => Some(params), _ => None };
        let _ = call_json(driver.as_ref(), method, params);
    }

    #[test]
    fn answers_round_trip(id in json_value(), result in json_value()) {
        let line = encode_answer(&id, &Ok(result.clone()));
        let (back_id, back) = parse_answer(&line).unwrap();
        prop_assert_eq!(back_id, id);
        prop_assert_eq!(back.unwrap(), result);
    }
}
