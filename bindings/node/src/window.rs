//! `Window`: where locators start, one window of an app (by title, by id, or the focused one).

use crate::finders::{self, Root, TextKind};
use crate::locator::Locator;
use crate::matching::{self, JsText, RoleOptions, TextOptions};
use napi::bindgen_prelude::Object;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;
use uidrive_core::locator::TextMatch;
use uidrive_core::protocol::WindowId;
use uidrive_core::{App as CoreApp, Result as CoreResult, WindowRef};

pub enum WindowChoice {
    Focused,
    Id(WindowId),
    Titled(TextMatch),
}

/// `app.window(options)`'s options as a choice of window.
pub fn choice(options: Option<&Object<'_>>) -> napi::Result<CoreResult<WindowChoice>> {
    let Some(options) = options else {
        return Ok(Ok(WindowChoice::Focused));
    };
    let exact = options.get::<bool>("exact")?;
    let title = options.get::<JsText<'_>>("title")?;
    let id = options.get::<f64>("id")?;
    match (title, id) {
        (Some(_), Some(_)) => Ok(Err(crate::error::invalid_argument(
            "window",
            "give title or id, not both",
        ))),
        (Some(title), None) => {
            Ok(matching::text_match("window: title", title, exact).map(WindowChoice::Titled))
        }
        (None, Some(id)) => Ok(crate::convert::window_id("window: id", Some(id))
            .map(|id| WindowChoice::Id(id.unwrap_or_default()))),
        (None, None) => Ok(Ok(WindowChoice::Focused)),
    }
}

#[napi]
pub struct Window {
    pub(crate) inner: WindowRef,
    app: Arc<CoreApp>,
}

impl Window {
    pub fn new(inner: WindowRef, app: Arc<CoreApp>) -> Window {
        Window { inner, app }
    }

    fn root(&self) -> Root<'_> {
        Root::Window(&self.inner, &self.app)
    }
}

#[napi]
impl Window {
    #[napi]
    pub fn get_by_role(
        &self,
        env: Env,
        role: String,
        options: Option<RoleOptions<'_>>,
    ) -> napi::Result<Locator> {
        finders::by_role(&env, self.root(), role, options)
    }

    #[napi(ts_args_type = "key: string | number | boolean")]
    pub fn get_by_key(&self, env: Env, key: Value) -> napi::Result<Locator> {
        finders::by_key(&env, self.root(), key)
    }

    #[napi]
    pub fn get_by_text(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(&env, self.root(), TextKind::Text, text, options)
    }

    #[napi]
    pub fn get_by_label(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(&env, self.root(), TextKind::Label, text, options)
    }

    #[napi]
    pub fn get_by_placeholder(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(&env, self.root(), TextKind::Placeholder, text, options)
    }

    /// Boxes where OCR reads `text` on the window's capture (apps with no tree).
    #[napi]
    pub fn get_by_ocr(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<finders::OcrOptions>,
    ) -> napi::Result<Locator> {
        finders::by_ocr(&env, self.root(), text, options)
    }

    /// Boxes where the PNG file's picture shows on the window's capture.
    #[napi]
    pub fn get_by_image(&self, path: String, options: Option<finders::ImageOptions>) -> Locator {
        finders::by_image(self.root(), path, options)
    }

    #[napi]
    pub fn get_by_id(&self, env: Env, id: String) -> napi::Result<Locator> {
        finders::by_id(&env, self.root(), id)
    }

    #[napi]
    pub fn locator(&self, selector: String) -> Locator {
        finders::by_selector(self.root(), &selector)
    }
}
