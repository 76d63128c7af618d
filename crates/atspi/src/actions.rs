//! `act`: finding the element and doing what it offers, through its AT-SPI interfaces.

mod typing;

pub(crate) use typing::send_keys;

use crate::bus::{
    self, ObjRef, IFACE_ACCESSIBLE, IFACE_ACTION, IFACE_COMPONENT, IFACE_TEXT, IFACE_VALUE,
};
use crate::discovery::TopLevel;
use crate::driver::Inner;
use crate::fetch::Ifaces;
use crate::lanes;
use crate::roles;
use crate::states::st;
use crate::tree::{self, expand_action, id_of, is_range, press_action, Element};
use crate::windows;
use std::time::Duration;
use uidrive_core::protocol::{ActParams, Action, ElementKey};
use uidrive_core::{Error, ErrorCode, Result};

/// Performs `params.action` on the element it names in its window.
pub async fn act(inner: &Inner, params: &ActParams) -> Result<()> {
    let (window, top) =
        windows::resolve(&inner.link, &inner.app, &inner.ids, params.window).await?;
    // An element seen in an earlier read of this window is read alone, and
    // checked to be still inside the window; any other needs the whole window.
    if let Some(obj) = params.id.and_then(|id| inner.known.get(id, &top.obj)) {
        let mut found = read_one(inner, &obj, &top.obj).await?;
        if found.is_none() {
            // A cell asked for by its place may have been dropped by the app since.
            if let Some(again) = crate::visible::ask_again(&inner.link, &obj).await {
                found = read_one(inner, &again, &top.obj).await?;
            }
        }
        return match found {
            Some(element) => perform(inner, &element, params, (window, &top)).await,
            None => Err(Error::no_element(format!(
                "window {window} has no element {} any more",
                params.id.unwrap_or_default()
            ))),
        };
    }
    let elements = tree::read_elements(&inner.link, &inner.app, &top.obj).await?;
    inner.known.remember(&elements, &top.obj);
    let element = find(&elements, params, window)?;
    perform(inner, element, params, (window, &top)).await
}

/// Reads one element, if it is still inside `window`.
async fn read_one(inner: &Inner, obj: &ObjRef, window: &ObjRef) -> Result<Option<Element>> {
    // The element and its chain of parents are asked side by side.
    let (raw, inside) = tokio::join!(inner.element_basics(obj), inside(inner, obj, window));
    let mut raw = match raw {
        Ok(raw) => raw,
        Err(e) if e.code == ErrorCode::NoElement => return Ok(None),
        Err(e) => return Err(e),
    };
    if raw.states.has(st::DEFUNCT) || !inside? {
        return Ok(None);
    }
    inner.element_fields(&mut raw).await;
    Ok(Some(Element {
        raw,
        parent: None,
        in_scroller: true,
    }))
}

/// Whether `obj`'s chain of parents reaches `window`.
async fn inside(inner: &Inner, obj: &ObjRef, window: &ObjRef) -> Result<bool> {
    let mut at = obj.clone();
    for _ in 0..256 {
        if at == *window {
            return Ok(true);
        }
        let (conn, dest) = inner.link.route(&at.0);
        let parent =
            match bus::get_prop(conn, dest, at.1.as_str(), IFACE_ACCESSIBLE, "Parent").await {
                Ok(parent) => parent,
                Err(e) if e.code == ErrorCode::NoElement => return Ok(false),
                Err(e) => return Err(e),
            };
        let Ok(parent) = <(String, zbus::zvariant::OwnedObjectPath)>::try_from(parent) else {
            return Ok(false);
        };
        if parent.1.as_str() == "/org/a11y/atspi/null"
            || parent.1.as_str() == "/org/a11y/atspi/accessible/root"
        {
            return Ok(false);
        }
        at = (
            if parent.0.is_empty() {
                at.0.clone()
            } else {
                parent.0
            },
            parent.1,
        );
    }
    Ok(false)
}

/// The element `params` names by id or key.
pub fn find<'a>(elements: &'a [Element], params: &ActParams, window: u64) -> Result<&'a Element> {
    if let Some(id) = params.id {
        return elements
            .iter()
            .find(|e| id_of(&e.raw) == id)
            .ok_or_else(|| Error::no_element(format!("window {window} has no element {id}")));
    }
    let key = params
        .key
        .as_ref()
        .map(ElementKey::to_string)
        .unwrap_or_default();
    let matching: Vec<&Element> = elements.iter().filter(|e| e.raw.key() == key).collect();
    match matching.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::no_element(format!(
            "window {window} has no element with key `{key}`"
        ))),
        many => Err(Error::new(
            ErrorCode::Ambiguous,
            format!(
                "{} elements of window {window} have key `{key}`",
                many.len()
            ),
        )
        .with_suggestion("name the element by its `id` from `tree`")),
    }
}

/// Does one action on one element of the window `(id, top level)`.
pub async fn perform(
    inner: &Inner,
    element: &Element,
    params: &ActParams,
    (window, top): (u64, &TopLevel),
) -> Result<()> {
    // A hidden element's actions may have been left for later by the tree read.
    let mut element = element.clone();
    element.raw.actions = crate::fetch::actions_of(&inner.link, &element.raw).await;
    element.raw.actions_unread = false;
    let element = &element;
    let raw = &element.raw;
    let obj = raw.obj.clone().expect("read elements have their object");
    let (dest, path) = (obj.0.as_str(), obj.1.as_str());
    let what = describe(element);
    let lacks =
        |missing: &str| Error::unsupported(format!("{what} cannot `{}`: {missing}", params.action));
    let latency = inner.app.toolkit.action_latency();
    match &params.action {
        Action::Press => {
            if let Some(done) = crate::qt::press_tree_item(inner, raw).await? {
                return ok_or_failed(done, &what, "select the row");
            }
            let index = press_action(&raw.actions).ok_or_else(|| {
                lacks(&format!(
                    "it offers no press action (its actions: {})",
                    list_or_none(&raw.actions)
                ))
            })?;
            do_action(inner, dest, path, index, latency).await
        }
        Action::Expand | Action::Collapse => {
            let opens = params.action == Action::Expand && tree::opens_popup(raw);
            if !raw.states.has(st::EXPANDABLE) && !opens {
                return Err(lacks("it does not expand or collapse"));
            }
            let want_expanded = params.action == Action::Expand;
            if raw.states.has(st::EXPANDED) == want_expanded {
                return Ok(());
            }
            let index = expand_action(&raw.actions)
                .ok_or_else(|| lacks("it offers no action that expands it"))?;
            do_action(inner, dest, path, index, latency).await
        }
        Action::Focus => {
            if !raw.states.has(st::FOCUSABLE) {
                return Err(lacks("it is not focusable"));
            }
            let done =
                lanes::call_done(inner, dest, path, IFACE_COMPONENT, "GrabFocus", &()).await?;
            inner.activity.acted(&inner.app.bus, Duration::ZERO);
            ok_or_failed(done, &what, "take the focus")
        }
        Action::SetValue => {
            let text = params.text.clone().unwrap_or_default();
            // A spin button is both a range and editable text. Its text is
            // parsed into its value only when it is activated or loses the
            // focus, so a number goes through the Value interface, which
            // moves the value and the text it shows together.
            let number = text.trim().parse::<f64>().ok().filter(|n| n.is_finite());
            if let (true, Some(number)) = (is_range(raw), number) {
                return set_number(inner, element, number).await;
            }
            if raw.ifaces.has(Ifaces::EDITABLE_TEXT) && raw.states.has(st::EDITABLE) {
                let target = typing::Target {
                    inner,
                    element,
                    window,
                    top,
                };
                return typing::set_text(&target, &text).await;
            }
            if is_range(raw) {
                return Err(Error::invalid_request(format!(
                    "act.text `{text}` is not a number, and {what} is a range"
                )));
            }
            Err(lacks("it is neither editable text nor a range"))
        }
        Action::InsertText => {
            if !(raw.ifaces.has(Ifaces::EDITABLE_TEXT) && raw.states.has(st::EDITABLE)) {
                return Err(lacks("it is not editable text"));
            }
            let text = params.text.clone().unwrap_or_default();
            let target = typing::Target {
                inner,
                element,
                window,
                top,
            };
            typing::insert_text(&target, &text).await
        }
        Action::SelectText => {
            if !raw.ifaces.has(Ifaces::TEXT) {
                return Err(lacks("it has no text"));
            }
            let (from, to) = (
                params.from.unwrap_or(0) as i32,
                params.to.unwrap_or(0) as i32,
            );
            let count = raw.text.as_ref().map(|t| t.text.chars().count() as i32);
            if let Some(count) = count {
                if to > count {
                    return Err(Error::invalid_request(format!(
                        "act.to {to} is past the end of {what}, which has {count} characters"
                    )));
                }
            }
            let replaced = lanes::call_done(
                inner,
                dest,
                path,
                IFACE_TEXT,
                "SetSelection",
                &(0i32, from, to),
            )
            .await
            .unwrap_or(false);
            let done = replaced
                || lanes::call_done(inner, dest, path, IFACE_TEXT, "AddSelection", &(from, to))
                    .await?;
            inner.activity.acted(&inner.app.bus, Duration::ZERO);
            ok_or_failed(done, &what, "select the text")
        }
        Action::Increment | Action::Decrement => {
            if !is_range(raw) {
                return Err(lacks("it is not a range"));
            }
            let v = raw.value.unwrap_or_default();
            let (min, max) = (v.min.unwrap_or(0.0), v.max.unwrap_or(0.0));
            let step = v.step.unwrap_or(((max - min) / 10.0).max(1.0));
            let now = v.now.unwrap_or(min);
            let next = if params.action == Action::Increment {
                now + step
            } else {
                now - step
            };
            set_number(inner, element, next.clamp(min, max)).await
        }
        Action::ScrollIntoView => {
            if !raw.ifaces.has(Ifaces::COMPONENT) {
                return Err(lacks("it has no place on screen"));
            }
            const ANYWHERE: u32 = 6;
            let done =
                lanes::call_done(inner, dest, path, IFACE_COMPONENT, "ScrollTo", &(ANYWHERE,))
                    .await?;
            inner.activity.acted(&inner.app.bus, Duration::ZERO);
            ok_or_failed(done, &what, "scroll into view")
        }
        Action::Other(name) => Err(Error::invalid_request(format!("`{name}` is not an action"))),
    }
}

/// Sets a range's value, which must lie within its bounds.
async fn set_number(inner: &Inner, element: &Element, number: f64) -> Result<()> {
    let raw = &element.raw;
    let v = raw.value.unwrap_or_default();
    if let (Some(min), Some(max)) = (v.min, v.max) {
        if number < min || number > max {
            return Err(Error::invalid_request(format!(
                "{number} is outside {}, which goes from {min} to {max}",
                describe(element)
            )));
        }
    }
    let obj = raw.obj.clone().expect("read elements have their object");
    let value = zbus::zvariant::Value::from(number);
    lanes::call::<(), _>(
        inner,
        &obj.0,
        obj.1.as_str(),
        bus::IFACE_PROPERTIES,
        "Set",
        &(IFACE_VALUE, "CurrentValue", value),
    )
    .await?;
    inner.activity.acted(&inner.app.bus, Duration::ZERO);
    // The value is read back: within half a step of the number (a range may
    // snap to its steps), else `failed` with what it reads.
    let tolerance = match v.step {
        Some(step) if step > 0.0 => step / 2.0,
        _ => 1e-9 * number.abs().max(1.0),
    };
    let deadline = std::time::Instant::now() + Duration::from_millis(600);
    loop {
        let now = current_value(inner, &obj).await;
        match now {
            Some(now) if (now - number).abs() <= tolerance => return Ok(()),
            // A range that cannot be read back is taken at its word.
            None => return Ok(()),
            Some(now) if std::time::Instant::now() >= deadline => {
                return Err(Error::failed(format!(
                    "{} reads {now} after setting it to {number}",
                    describe(element)
                ))
                .with_suggestion("the app may limit or refuse the value; read its `tree`"));
            }
            Some(_) => {
                let _ = inner.idle(None, Duration::from_millis(300)).await;
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        }
    }
}

/// A range's current value, as the app reports it now.
async fn current_value(inner: &Inner, obj: &ObjRef) -> Option<f64> {
    use zbus::zvariant::Value;
    let value = bus::get_prop(
        &inner.conn,
        &obj.0,
        obj.1.as_str(),
        IFACE_VALUE,
        "CurrentValue",
    )
    .await
    .ok()?;
    match &*value {
        Value::F64(v) => Some(*v),
        Value::I32(v) => Some(f64::from(*v)),
        Value::U32(v) => Some(f64::from(*v)),
        Value::I64(v) => Some(*v as f64),
        Value::U64(v) => Some(*v as f64),
        _ => None,
    }
}

/// Runs the element's action `index`, and notes when its effect may land.
pub async fn do_action(
    inner: &Inner,
    dest: &str,
    path: &str,
    index: usize,
    latency: Duration,
) -> Result<()> {
    let done = lanes::call_done(
        inner,
        dest,
        path,
        IFACE_ACTION,
        "DoAction",
        &(index as i32,),
    )
    .await?;
    let earliest = if latency.is_zero() {
        Duration::ZERO
    } else {
        inner.app.toolkit.action_earliest()
    };
    inner.activity.acted_late(&inner.app.bus, earliest, latency);
    ok_or_failed(done, path, "do the action")
}

fn ok_or_failed(done: bool, what: &str, doing: &str) -> Result<()> {
    if done {
        Ok(())
    } else {
        Err(Error::failed(format!(
            "the app refused to {doing} on {what}"
        )))
    }
}

/// An element as a message names it: its role and label.
pub fn describe(element: &Element) -> String {
    let raw = &element.raw;
    let role = roles::protocol_role(raw.role);
    if raw.name.is_empty() {
        format!("the {role} {}", id_of(raw))
    } else {
        format!("the {role} \"{}\"", raw.name)
    }
}

fn list_or_none(actions: &[String]) -> String {
    if actions.is_empty() {
        "none".into()
    } else {
        actions.join(", ")
    }
}
