//! The `getBy*` family, shared by App, Window and Locator: each makes a new
//! lazy Locator at once, with no I/O.

use crate::error;
use crate::locator::Locator;
use crate::matching::{self, JsText, RoleOptions, TextOptions};
use napi::Env;
use serde_json::Value;
use std::sync::Arc;
use uidrive_core::locator::{RoleQuery, TextMatch};
use uidrive_core::protocol::{ElementId, ElementKey, Role};
use uidrive_core::{App as CoreApp, Find, Locator as CoreLocator, WindowRef};

/// Where a search starts.
pub enum Root<'a> {
    App(&'a Arc<CoreApp>),
    Window(&'a WindowRef, &'a Arc<CoreApp>),
    Within(&'a CoreLocator, &'a Arc<CoreApp>),
}

impl Root<'_> {
    fn find(&self) -> &dyn Find {
        match self {
            Root::App(app) => app.as_ref(),
            Root::Window(window, _) => *window,
            Root::Within(locator, _) => *locator,
        }
    }

    fn app(&self) -> &Arc<CoreApp> {
        match self {
            Root::App(app) | Root::Window(_, app) | Root::Within(_, app) => app,
        }
    }

    fn by_role(&self, role: Role, query: RoleQuery) -> CoreLocator {
        self.find().get_by_role(role, query)
    }

    fn by_key(&self, key: ElementKey) -> CoreLocator {
        self.find().get_by_key(key)
    }

    fn by_text(&self, text: TextMatch) -> CoreLocator {
        self.find().get_by_text(text)
    }

    fn by_label(&self, label: TextMatch) -> CoreLocator {
        self.find().get_by_label(label)
    }

    fn by_placeholder(&self, text: TextMatch) -> CoreLocator {
        self.find().get_by_placeholder(text)
    }

    fn by_ocr(&self, text: TextMatch) -> CoreLocator {
        self.find().get_by_ocr(text)
    }

    fn by_image(&self, path: std::path::PathBuf, threshold: Option<f64>) -> CoreLocator {
        self.find().get_by_image(path, threshold)
    }

    fn by_id(&self, id: ElementId) -> CoreLocator {
        self.find().get_by_id(id)
    }

    fn by_selector(&self, selector: &str) -> CoreLocator {
        self.find().locator(selector)
    }
}

fn wrap(root: &Root<'_>, locator: CoreLocator, include_hidden: bool) -> Locator {
    let locator = if include_hidden {
        locator.include_hidden(true)
    } else {
        locator
    };
    Locator::new(locator, root.app().clone())
}

pub fn by_role(
    env: &Env,
    root: Root<'_>,
    role: String,
    options: Option<RoleOptions<'_>>,
) -> napi::Result<Locator> {
    let role = error::sync(env, matching::role(&role))?;
    let (query, hidden) = error::sync(env, matching::role_query(options))?;
    Ok(wrap(&root, root.by_role(role, query), hidden))
}

pub fn by_key(env: &Env, root: Root<'_>, key: Value) -> napi::Result<Locator> {
    let key = error::sync(env, matching::element_key(key))?;
    Ok(wrap(&root, root.by_key(key), false))
}

pub enum TextKind {
    Text,
    Label,
    Placeholder,
}

pub fn by_text(
    env: &Env,
    root: Root<'_>,
    kind: TextKind,
    text: JsText<'_>,
    options: Option<TextOptions>,
) -> napi::Result<Locator> {
    let (exact, hidden) = matching::text_options(&options);
    let (what, make): (&str, fn(&Root<'_>, TextMatch) -> CoreLocator) = match kind {
        TextKind::Text => ("getByText", |r, t| r.by_text(t)),
        TextKind::Label => ("getByLabel", |r, t| r.by_label(t)),
        TextKind::Placeholder => ("getByPlaceholder", |r, t| r.by_placeholder(t)),
    };
    let text = error::sync(env, matching::text_match(what, text, exact))?;
    Ok(wrap(&root, make(&root, text), hidden))
}

/// Options of `getByOcr`.
#[napi_derive::napi(object)]
pub struct OcrOptions {
    /// Match the whole text, case-sensitively.
    pub exact: Option<bool>,
}

/// Options of `getByImage`.
#[napi_derive::napi(object)]
pub struct ImageOptions {
    /// The least score a place must reach, above 0 and at most 1 (0.9 by default).
    pub threshold: Option<f64>,
}

/// `getByOcr(text)`: boxes where OCR reads the text on the window's capture.
pub fn by_ocr(
    env: &Env,
    root: Root<'_>,
    text: JsText<'_>,
    options: Option<OcrOptions>,
) -> napi::Result<Locator> {
    let exact = options.and_then(|o| o.exact);
    let text = error::sync(env, matching::text_match("getByOcr", text, exact))?;
    Ok(wrap(&root, root.by_ocr(text), false))
}

/// `getByImage(path)`: boxes where the PNG file's picture shows on the capture.
pub fn by_image(root: Root<'_>, path: String, options: Option<ImageOptions>) -> Locator {
    let threshold = options.and_then(|o| o.threshold);
    wrap(&root, root.by_image(path.into(), threshold), false)
}

pub fn by_id(env: &Env, root: Root<'_>, id: String) -> napi::Result<Locator> {
    let id: ElementId = error::sync(
        env,
        id.parse()
            .map_err(|e: String| error::invalid_argument("getById", e)),
    )?;
    Ok(wrap(&root, root.by_id(id), false))
}

/// `locator(selector)`: the string form, as `role=button[name="Add"] >> nth=0`.
pub fn by_selector(root: Root<'_>, selector: &str) -> Locator {
    wrap(&root, root.by_selector(selector), false)
}
