//! The desktop's services: ``desktop.clipboard``, ``desktop.notifications()``
//! (``Notification``), ``desktop.tray()`` (``TrayItem``, ``TrayMenuItem``).
//! The operations are the facade's (uidrive_facade::services); this marshals.

use crate::convert::opt_timeout_ms;
use crate::desktop::PyDesktop;
use crate::errors::IntoPy;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use uidrive_facade::services::Services;

/// The desktop's clipboard (``desktop.clipboard``): uidrive holds what it
/// sets and gives it to the apps that paste.
#[pyclass(module = "uidrive._native", name = "Clipboard", frozen)]
pub struct PyClipboard {
    services: Services,
}

#[pymethods]
impl PyClipboard {
    /// The text on the clipboard (``primary``: the primary selection), or
    /// ``None`` when it is empty or holds no text.
    #[pyo3(signature = (*, primary=false))]
    fn get(&self, py: Python<'_>, primary: bool) -> PyResult<Option<String>> {
        let services = self.services.clone();
        py.detach(move || services.clipboard_get(primary))
            .or_raise(py)
    }

    /// Puts ``text`` on the clipboard.
    #[pyo3(signature = (text, *, primary=false))]
    fn set(&self, py: Python<'_>, text: String, primary: bool) -> PyResult<()> {
        let services = self.services.clone();
        py.detach(move || services.clipboard_set(&text, primary))
            .or_raise(py)
    }

    /// Empties the clipboard, whoever holds it.
    #[pyo3(signature = (*, primary=false))]
    fn clear(&self, py: Python<'_>, primary: bool) -> PyResult<()> {
        let services = self.services.clone();
        py.detach(move || services.clipboard_clear(primary))
            .or_raise(py)
    }

    /// The image on the clipboard as PNG bytes, when the app holding it
    /// offers ``image/png``; else ``None``.
    #[pyo3(signature = (*, primary=false))]
    fn get_image<'py>(
        &self,
        py: Python<'py>,
        primary: bool,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let services = self.services.clone();
        let png = py
            .detach(move || services.clipboard_get_image(primary))
            .or_raise(py)?;
        Ok(png.map(|png| PyBytes::new(py, &png)))
    }
}

/// A notification an app showed on uidrive's headless desktop.
#[pyclass(module = "uidrive._native", name = "Notification", frozen)]
pub struct PyNotification {
    services: Services,
    #[pyo3(get)]
    id: u32,
    #[pyo3(get)]
    app_name: String,
    #[pyo3(get)]
    summary: String,
    #[pyo3(get)]
    body: String,
    /// ``(action id, label)`` pairs, in order.
    #[pyo3(get)]
    actions: Vec<(String, String)>,
    /// ``"low"``, ``"normal"`` or ``"critical"``.
    #[pyo3(get)]
    urgency: String,
    /// When it was shown, in seconds since the epoch (as ``time.time()``).
    #[pyo3(get)]
    time: f64,
    #[pyo3(get)]
    icon: String,
    #[pyo3(get)]
    category: Option<String>,
}

impl PyNotification {
    fn new(services: &Services, n: uidrive_facade::services::Notification) -> PyNotification {
        PyNotification {
            services: services.clone(),
            id: n.id,
            app_name: n.app_name,
            summary: n.summary,
            body: n.body,
            actions: n.actions.into_iter().map(|a| (a.id, a.label)).collect(),
            urgency: n.urgency,
            time: n.time as f64 / 1000.0,
            icon: n.icon,
            category: n.category,
        }
    }
}

#[pymethods]
impl PyNotification {
    /// Dismisses it, as a person closing it; its app is told.
    fn dismiss(&self, py: Python<'_>) -> PyResult<()> {
        let (services, id) = (self.services.clone(), self.id);
        py.detach(move || services.notification_dismiss(id))
            .or_raise(py)
    }

    /// Invokes its action ``action`` (an id of ``actions``), as a click on
    /// its button: the app gets ``ActionInvoked``, then it closes.
    fn invoke(&self, py: Python<'_>, action: String) -> PyResult<()> {
        let (services, id) = (self.services.clone(), self.id);
        py.detach(move || services.notification_invoke(id, &action))
            .or_raise(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<uidrive.Notification {} {:?} from {:?}>",
            self.id, self.summary, self.app_name
        )
    }
}

/// An item of the tray on uidrive's headless desktop.
#[pyclass(module = "uidrive._native", name = "TrayItem", frozen)]
pub struct PyTrayItem {
    services: Services,
    #[pyo3(get)]
    id: String,
    /// Where it is on the bus: ``busname/path``.
    #[pyo3(get)]
    service: String,
    #[pyo3(get)]
    title: String,
    #[pyo3(get)]
    tooltip: String,
    /// ``"Passive"``, ``"Active"`` or ``"NeedsAttention"``.
    #[pyo3(get)]
    status: String,
    #[pyo3(get)]
    category: String,
    #[pyo3(get)]
    icon: String,
    #[pyo3(get)]
    has_menu: bool,
}

#[pymethods]
impl PyTrayItem {
    /// Activates it, as a click on its icon.
    fn activate(&self, py: Python<'_>) -> PyResult<()> {
        let (services, item) = (self.services.clone(), self.service.clone());
        py.detach(move || services.tray_activate(&item).map(|_| ()))
            .or_raise(py)
    }

    /// Its menu's entries, every depth, a submenu before what it holds.
    fn menu(&self, py: Python<'_>) -> PyResult<Vec<PyTrayMenuItem>> {
        let (services, item) = (self.services.clone(), self.service.clone());
        let entries = py
            .detach({
                let item = item.clone();
                move || services.tray_menu(&item)
            })
            .or_raise(py)?;
        Ok(entries
            .into_iter()
            .map(|e| PyTrayMenuItem {
                services: self.services.clone(),
                item: item.clone(),
                id: e.id,
                label: e.label,
                enabled: e.enabled,
                visible: e.visible,
                separator: e.separator,
                toggle: e.toggle,
                checked: e.checked,
                path: e.path,
                submenu: e.submenu,
            })
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("<uidrive.TrayItem {:?} {:?}>", self.id, self.title)
    }
}

/// An entry of a tray item's menu.
#[pyclass(module = "uidrive._native", name = "TrayMenuItem", frozen)]
pub struct PyTrayMenuItem {
    services: Services,
    item: String,
    #[pyo3(get)]
    id: i32,
    #[pyo3(get)]
    label: String,
    #[pyo3(get)]
    enabled: bool,
    #[pyo3(get)]
    visible: bool,
    #[pyo3(get)]
    separator: bool,
    /// ``"checkmark"`` or ``"radio"`` for a toggle, else ``""``.
    #[pyo3(get)]
    toggle: String,
    #[pyo3(get)]
    checked: bool,
    /// The labels of the submenus it is in, outermost first.
    #[pyo3(get)]
    path: Vec<String>,
    #[pyo3(get)]
    submenu: bool,
}

#[pymethods]
impl PyTrayMenuItem {
    /// Clicks it (the app gets the menu's ``clicked`` event).
    fn click(&self, py: Python<'_>) -> PyResult<()> {
        let (services, item, id) = (self.services.clone(), self.item.clone(), self.id);
        py.detach(move || services.tray_click(&item, &id.to_string()).map(|_| ()))
            .or_raise(py)
    }

    fn __repr__(&self) -> String {
        format!("<uidrive.TrayMenuItem {} {:?}>", self.id, self.label)
    }
}

#[pymethods]
impl PyDesktop {
    /// The desktop's clipboard (CLIPBOARD; ``primary=True`` for PRIMARY).
    #[getter]
    fn clipboard(&self, py: Python<'_>) -> PyResult<PyClipboard> {
        let services = self.desktop.services().or_raise(py)?;
        Ok(PyClipboard { services })
    }

    /// The notifications apps show on this desktop now, oldest first
    /// (uidrive is its notification server).
    fn notifications(&self, py: Python<'_>) -> PyResult<Vec<PyNotification>> {
        let services = self.desktop.services().or_raise(py)?;
        let list = services.notifications().or_raise(py)?;
        Ok(list
            .into_iter()
            .map(|n| PyNotification::new(&services, n))
            .collect())
    }

    /// Waits up to ``timeout`` milliseconds (``None``: 10 s) for a notification
    /// whose summary, body and app name hold the texts given (each ``None``: any).
    #[pyo3(signature = (*, summary=None, body=None, app=None, timeout=None))]
    fn wait_for_notification(
        &self,
        py: Python<'_>,
        summary: Option<String>,
        body: Option<String>,
        app: Option<String>,
        timeout: Option<f64>,
    ) -> PyResult<PyNotification> {
        let timeout = opt_timeout_ms(py, "timeout", timeout)?;
        let services = self.desktop.services().or_raise(py)?;
        let found = py
            .detach({
                let services = services.clone();
                move || {
                    services.wait_for_notification(
                        summary.as_deref(),
                        body.as_deref(),
                        app.as_deref(),
                        timeout,
                    )
                }
            })
            .or_raise(py)?;
        Ok(PyNotification::new(&services, found))
    }

    /// The tray's items (uidrive is the StatusNotifierWatcher).
    fn tray(&self, py: Python<'_>) -> PyResult<Vec<PyTrayItem>> {
        let services = self.desktop.services().or_raise(py)?;
        let items = py
            .detach({
                let services = services.clone();
                move || services.tray()
            })
            .or_raise(py)?;
        Ok(items
            .into_iter()
            .map(|i| PyTrayItem {
                services: services.clone(),
                id: i.id,
                service: i.service,
                title: i.title,
                tooltip: i.tooltip,
                status: i.status,
                category: i.category,
                icon: i.icon,
                has_menu: i.has_menu,
            })
            .collect())
    }
}
