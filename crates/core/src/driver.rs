//! The `Driver` trait: one method per protocol method, plus `hello`.

use crate::error::{Error, ErrorCode, Result};
use crate::protocol::wire::decode_params;
use crate::protocol::{
    ActParams, AppList, Capture, CaptureParams, CellAtParams, ElementAtParams, ElementId,
    EvalParams, Event, Hello, HelloParams, IdleParams, InputParams, ManageWindowParams, MenuParams,
    Method, NoParams, Node, Tree, TreeParams, WaitEventParams, WindowList, WindowState,
};
use serde::Serialize;
use serde_json::{json, Value};

/// Something that can drive an app's windows: a platform's accessibility API,
/// or a socket to an app that speaks the protocol.
///
/// Every method blocks until the answer is in and never hangs past its
/// timeout. Params are the protocol's; a `window` of `None` means the focused
/// window, else the first.
pub trait Driver: Send + Sync {
    /// Who the server is and what it supports.
    fn hello(&self) -> Result<Hello>;
    /// The open windows.
    fn windows(&self) -> Result<WindowList>;
    /// A window's elements, a parent before its children.
    fn tree(&self, params: &TreeParams) -> Result<Tree>;
    /// An action on one element, as assistive technology performs it.
    fn act(&self, params: &ActParams) -> Result<()>;
    /// Real pointer, wheel, key and text input to the window's content.
    fn input(&self, params: &InputParams) -> Result<()>;
    /// Chooses a menu-bar item by the labels along its path.
    fn menu(&self, params: &MenuParams) -> Result<()>;
    /// The window as a PNG.
    fn capture(&self, params: &CaptureParams) -> Result<Capture>;
    /// Evaluates a script in a window showing a web page.
    fn eval(&self, params: &EvalParams) -> Result<Value>;
    /// Answers once the window has settled, or fails with `timeout`.
    fn idle(&self, params: &IdleParams) -> Result<()>;
    /// uidrive's addition: the deepest element the toolkit's hit test finds
    /// at a point of the window's content (`None`: nothing there). A driver
    /// without a hit test fails with `unsupported`, the default; a driver
    /// that wraps another must forward it.
    fn element_at(&self, params: &ElementAtParams) -> Result<Option<ElementId>> {
        let _ = params;
        Err(Error::unsupported("this app offers no hit test"))
    }
    /// uidrive's addition: a table's cell by its place, through the
    /// toolkit's own lookup, for tables too big to read whole (a read shows
    /// only the cells on screen and marks the table `truncated`). Answers the
    /// cell, its parent the table, then the elements inside it; none when the
    /// table has no cell there. The default is `unsupported`; a driver that
    /// wraps another must forward it.
    fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        let _ = params;
        Err(Error::unsupported(
            "this app offers no lookup of a cell by its place",
        ))
    }
    /// uidrive's addition: the first accessibility event of `params.kind`
    /// (on `params.element`, if given) since the driver's last action (`act`,
    /// `input` or `menu`) that no earlier call answered, else the next one
    /// to come, or `timeout` once `params.timeout` has passed. Events are
    /// answered in order: answering one drops those before it. Answers the
    /// event with its element and detail; core reads the node and value.
    /// The default is `unsupported` (a driver that sees no events); a
    /// driver that wraps another must forward it.
    fn wait_event(&self, params: &WaitEventParams) -> Result<Event> {
        let _ = params;
        Err(
            Error::unsupported("this app's driver receives no accessibility events")
                .with_suggestion(
                    "wait for what the event would show instead (expect, wait_for_window)",
                ),
        )
    }
    /// uidrive's addition: moves, resizes, minimizes, maximizes, restores,
    /// focuses or closes a window through the desktop's window manager and
    /// reads its effect back (or only reads the window's state). The
    /// default is `unsupported`; a driver that wraps another must forward it.
    fn manage_window(&self, params: &ManageWindowParams) -> Result<WindowState> {
        let _ = params;
        Err(Error::unsupported(
            "this app's server manages no windows (`manageWindow`)",
        ))
    }
    /// uidrive's addition: every app on the desktop's accessibility bus.
    /// The default is `unsupported`; a driver that wraps another must forward it.
    fn apps(&self) -> Result<AppList> {
        Err(Error::unsupported(
            "this app's server cannot list the desktop's apps (`apps`)",
        ))
    }
    /// uidrive's addition: the whole screen as a PNG. The default is
    /// `unsupported`; a driver that wraps another must forward it.
    fn capture_screen(&self) -> Result<Capture> {
        Err(Error::unsupported(
            "this app's server cannot capture the screen (`captureScreen`)",
        ))
    }
    /// uidrive's addition: a window read for picking elements out of it, as
    /// locators do. A driver may first read every element's role, label,
    /// states and place alone (what a toolkit's cache answers at once), ask
    /// `wanted` which elements could be picked, and read every field of
    /// those only: the others then come with role, label, states and parent
    /// alone, without bounds. `wanted` answers every element that could be
    /// picked once read whole, and, for one whose label it cannot judge yet,
    /// the elements inside it too. The default reads the whole window; a
    /// driver that wraps another must forward it.
    fn tree_for(
        &self,
        params: &TreeParams,
        wanted: &dyn Fn(&Tree) -> Vec<ElementId>,
    ) -> Result<Tree> {
        let _ = wanted;
        self.tree(params)
    }

    /// Any method by name with JSON params, answering JSON: the generic door
    /// for front ends. A socket driver passes methods it does not know through.
    fn call(&self, method: &str, params: Option<Value>) -> Result<Value> {
        call_json(self, method, params)
    }

    /// uidrive's addition: the trace recorder of the App this driver serves,
    /// which its locators record their steps into. `None` (the default)
    /// outside an App; a driver that wraps another must forward it.
    fn tracer(&self) -> Option<crate::trace::Tracing> {
        None
    }
}

/// Runs `method` on `driver` with JSON params, as a server would: params are
/// decoded and checked first, with an `invalid_request` that names the field.
pub fn call_json<D: Driver + ?Sized>(
    driver: &D,
    method: &str,
    params: Option<Value>,
) -> Result<Value> {
    let Some(known) = Method::parse(method) else {
        return Err(Error::new(
            ErrorCode::UnknownMethod,
            format!("no method `{method}`"),
        ));
    };
    let name = known.as_str();
    match known {
        Method::Hello => {
            let _: HelloParams = decode_params(name, params)?;
            to_json(driver.hello()?)
        }
        Method::Windows => {
            let _: NoParams = decode_params(name, params)?;
            to_json(driver.windows()?)
        }
        Method::Tree => to_json(driver.tree(&decode_params(name, params)?)?),
        Method::Act => {
            let p: ActParams = decode_params(name, params)?;
            p.validate()?;
            driver.act(&p).map(|()| json!({}))
        }
        Method::Input => {
            let p: InputParams = decode_params(name, params)?;
            p.validate()?;
            driver.input(&p).map(|()| json!({}))
        }
        Method::Menu => {
            let p: MenuParams = decode_params(name, params)?;
            p.validate()?;
            driver.menu(&p).map(|()| json!({}))
        }
        Method::Capture => to_json(driver.capture(&decode_params::<CaptureParams>(name, params)?)?),
        Method::Eval => {
            let p: EvalParams = decode_params(name, params)?;
            driver.eval(&p).map(|value| json!({ "value": value }))
        }
        Method::Idle => {
            let p: IdleParams = decode_params(name, params)?;
            p.validate()?;
            driver.idle(&p).map(|()| json!({}))
        }
        Method::ElementAt => driver
            .element_at(&decode_params(name, params)?)
            .map(|id| json!({ "id": id })),
        Method::CellAt => {
            let p: CellAtParams = decode_params(name, params)?;
            p.validate()?;
            driver.cell_at(&p).map(|nodes| json!({ "nodes": nodes }))
        }
        Method::WaitEvent => {
            let p: WaitEventParams = decode_params(name, params)?;
            p.validate()?;
            to_json(driver.wait_event(&p)?)
        }
        Method::ManageWindow => {
            let p: ManageWindowParams = decode_params(name, params)?;
            p.validate()?;
            to_json(driver.manage_window(&p)?)
        }
        Method::Apps => {
            let _: NoParams = decode_params(name, params)?;
            to_json(driver.apps()?)
        }
        Method::CaptureScreen => {
            let _: NoParams = decode_params(name, params)?;
            to_json(driver.capture_screen()?)
        }
    }
}

fn to_json<T: Serialize>(result: T) -> Result<Value> {
    serde_json::to_value(result)
        .map_err(|e| Error::failed(format!("could not write the answer as JSON: {e}")))
}

impl<D: Driver + ?Sized> Driver for std::sync::Arc<D> {
    fn hello(&self) -> Result<Hello> {
        (**self).hello()
    }
    fn windows(&self) -> Result<WindowList> {
        (**self).windows()
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        (**self).tree(params)
    }
    fn act(&self, params: &ActParams) -> Result<()> {
        (**self).act(params)
    }
    fn input(&self, params: &InputParams) -> Result<()> {
        (**self).input(params)
    }
    fn menu(&self, params: &MenuParams) -> Result<()> {
        (**self).menu(params)
    }
    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        (**self).capture(params)
    }
    fn eval(&self, params: &EvalParams) -> Result<Value> {
        (**self).eval(params)
    }
    fn idle(&self, params: &IdleParams) -> Result<()> {
        (**self).idle(params)
    }
    fn element_at(&self, params: &ElementAtParams) -> Result<Option<ElementId>> {
        (**self).element_at(params)
    }
    fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        (**self).cell_at(params)
    }
    fn wait_event(&self, params: &WaitEventParams) -> Result<Event> {
        (**self).wait_event(params)
    }
    fn manage_window(&self, params: &ManageWindowParams) -> Result<WindowState> {
        (**self).manage_window(params)
    }
    fn apps(&self) -> Result<AppList> {
        (**self).apps()
    }
    fn capture_screen(&self) -> Result<Capture> {
        (**self).capture_screen()
    }
    fn tree_for(
        &self,
        params: &TreeParams,
        wanted: &dyn Fn(&Tree) -> Vec<ElementId>,
    ) -> Result<Tree> {
        (**self).tree_for(params, wanted)
    }
    fn call(&self, method: &str, params: Option<Value>) -> Result<Value> {
        (**self).call(method, params)
    }
    fn tracer(&self) -> Option<crate::trace::Tracing> {
        (**self).tracer()
    }
}
