//! Finding apps on the registry and their top-level windows.

use crate::bus::{self, call, ObjRef, IFACE_ACCESSIBLE};
use crate::fetch::CacheItems;
use crate::roles;
use crate::states::{st, StateSet};
use futures_util::future::join_all;
use std::time::Duration;
use uidrive_core::{Error, Result};
use zbus::Connection;

const REGISTRY: &str = "org.a11y.atspi.Registry";
pub const ROOT: &str = "/org/a11y/atspi/accessible/root";

/// Toolkit quirks that change how elements are read and acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolkit {
    /// GTK 4: window-relative extents, no SHOWING/ENABLED states, DoAction lands ~250 ms late.
    Gtk4,
    /// GTK 3, Qt and the rest: screen extents and the full state set.
    Other,
}

impl Toolkit {
    pub fn sets_showing(self) -> bool {
        self == Toolkit::Other
    }

    /// Whether `GetExtents` answers relative to the window whatever was asked.
    pub fn window_relative_extents(self) -> bool {
        self == Toolkit::Gtk4
    }

    /// Whether the toolkit sends an event for every change to what its cache
    /// holds (children, name, description, states) whether or not a client
    /// registered for it: GTK 4 emits with no listener check, where GTK 3's
    /// bridge sends only the events it learnt a client wants.
    pub fn announces_every_change(self) -> bool {
        self == Toolkit::Gtk4
    }

    /// Whether `GetAccessibleAtPoint` answers the deepest element under the
    /// point at once: GTK 4 answers the widget `gtk_widget_pick` finds
    /// there, the deepest, so asking that widget again only finds itself.
    /// Other toolkits answer the child under the point, one level down.
    pub fn hit_test_finds_deepest(self) -> bool {
        self == Toolkit::Gtk4
    }

    /// How long after a `DoAction` returns its effect may still land;
    /// settling waits for the first event after it, at most this long.
    pub fn action_latency(self) -> Duration {
        match self {
            Toolkit::Gtk4 => Duration::from_millis(350),
            Toolkit::Other => Duration::from_millis(0),
        }
    }

    /// How soon after a `DoAction` returns its effect can land at the
    /// earliest: GTK 4 holds a button's activation for 250 ms to animate it.
    pub fn action_earliest(self) -> Duration {
        match self {
            Toolkit::Gtk4 => Duration::from_millis(200),
            Toolkit::Other => Duration::ZERO,
        }
    }
}

/// An app on the accessibility bus.
#[derive(Debug, Clone)]
pub struct AppRef {
    pub bus: String,
    pub pid: u32,
    pub name: String,
    pub toolkit: Toolkit,
    /// The toolkit's own name, as `gtk` or `Qt`.
    pub toolkit_name: String,
}

impl AppRef {
    /// Whether the app is read through GTK's accessibility bridge: GTK 3 and
    /// 4, and LibreOffice's gtk3 plugin, which all name their toolkit `gtk`.
    pub fn behind_gtk_bridge(&self) -> bool {
        self.toolkit_name.eq_ignore_ascii_case("gtk")
    }

    /// Whether the app's objects are GTK 2's (GAIL), behind the same bridge
    /// as GTK 3 but with their own answers.
    pub fn behind_gail(&self) -> bool {
        self.toolkit_name.eq_ignore_ascii_case("gail")
    }

    /// Whether each element is worth asking its accessible id (AT-SPI's
    /// `AccessibleId`): GTK 3 answers the one an app set with
    /// `atk_object_set_accessible_id`, and Qt a path of `objectName`s (in
    /// versions newer than the 6.4 measured, which answers none). GTK 4
    /// (4.8) answers none. Firefox and Chromium answer
    /// it empty for every element and give the page's `id` as an attribute
    /// instead ([`AppRef::gives_web_attributes`]), so they are not asked.
    pub fn has_ids(&self) -> bool {
        self.toolkit != Toolkit::Gtk4 && !self.gives_web_attributes()
    }

    /// Whether the app's elements carry the attributes of the markup they
    /// come from (`id`, `class`, `tag`, a field's placeholder): Firefox
    /// (`Gecko`) and Chromium and its Electron apps, for a page's elements
    /// and their own UI's alike.
    pub fn gives_web_attributes(&self) -> bool {
        ["gecko", "chromium"]
            .iter()
            .any(|name| self.toolkit_name.eq_ignore_ascii_case(name))
    }
}

/// A top-level window as AT-SPI shows it.
#[derive(Debug, Clone)]
pub struct TopLevel {
    pub obj: ObjRef,
    pub role: u32,
    pub title: String,
    pub states: StateSet,
    /// `(x, y, width, height)` as `GetExtents(screen)` answers.
    pub extents: (i32, i32, i32, i32),
}

/// The apps registered on the bus, as `(bus name, root path)`.
pub async fn registry_apps(conn: &Connection) -> Result<Vec<ObjRef>> {
    call(conn, REGISTRY, ROOT, IFACE_ACCESSIBLE, "GetChildren", &()).await
}

/// The process that owns `bus` on the accessibility bus.
pub async fn pid_of(conn: &Connection, bus_name: &str) -> Result<u32> {
    call(
        conn,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "GetConnectionUnixProcessID",
        &(bus_name,),
    )
    .await
}

/// Describes the app at `bus`: its process, name and toolkit.
pub async fn describe_app(conn: &Connection, bus_name: &str) -> Result<AppRef> {
    let (pid, name, toolkit, version) = tokio::join!(
        pid_of(conn, bus_name),
        bus::get_prop(conn, bus_name, ROOT, IFACE_ACCESSIBLE, "Name"),
        bus::get_prop(
            conn,
            bus_name,
            ROOT,
            "org.a11y.atspi.Application",
            "ToolkitName"
        ),
        bus::get_prop(
            conn,
            bus_name,
            ROOT,
            "org.a11y.atspi.Application",
            "Version"
        ),
    );
    let text = |v: Result<zbus::zvariant::OwnedValue>| {
        v.ok()
            .and_then(|v| v.downcast_ref::<&str>().ok().map(str::to_string))
            .unwrap_or_default()
    };
    let (toolkit_name, version) = (text(toolkit), text(version));
    bus::mark_bulk(conn, bus_name, bulk_reads(&toolkit_name));
    let toolkit = if toolkit_name.eq_ignore_ascii_case("gtk") && version.starts_with("4.") {
        Toolkit::Gtk4
    } else {
        Toolkit::Other
    };
    Ok(AppRef {
        bus: bus_name.to_string(),
        pid: pid?,
        name: text(name),
        toolkit,
        toolkit_name,
    })
}

/// The bulk reads each toolkit was tested to answer without harm (Debian 12:
/// GTK 3.24 and 4.8, Qt 5.15 and 6.4, Firefox ESR 153, Chromium 156; by the
/// compatibility suite and by asking each `Cache.GetItems` again and again).
fn bulk_reads(toolkit_name: &str) -> bus::Bulk {
    match toolkit_name.to_ascii_lowercase().as_str() {
        "gtk" => bus::Bulk::All,
        "gecko" | "chromium" => bus::Bulk::Cache,
        _ => bus::Bulk::None,
    }
}

/// Every app on the registry, described; apps that vanish meanwhile are left out.
pub async fn all_apps(conn: &Connection) -> Result<Vec<AppRef>> {
    let apps = registry_apps(conn).await?;
    let described = join_all(
        apps.iter()
            .map(|(bus_name, _)| describe_app(conn, bus_name)),
    )
    .await;
    Ok(described.into_iter().filter_map(|a| a.ok()).collect())
}

/// The app whose process is one of `pids`, if it registered.
pub async fn find_app_by_pids(conn: &Connection, pids: &[u32]) -> Result<Option<AppRef>> {
    find_app_by_pids_except(conn, pids, "").await
}

/// [`find_app_by_pids`], leaving out the app at bus name `left` (one that
/// is leaving the bus).
pub async fn find_app_by_pids_except(
    conn: &Connection,
    pids: &[u32],
    left: &str,
) -> Result<Option<AppRef>> {
    let apps = registry_apps(conn).await?;
    let apps: Vec<_> = apps.into_iter().filter(|(b, _)| b != left).collect();
    let owners = join_all(apps.iter().map(|(b, _)| pid_of(conn, b))).await;
    for ((bus_name, _), owner) in apps.iter().zip(owners) {
        if owner.map(|p| pids.contains(&p)).unwrap_or(false) {
            return describe_app(conn, bus_name).await.map(Some);
        }
    }
    Ok(None)
}

/// The app whose accessible name is `name` (as `gnome-calculator`), if one registered.
pub async fn find_app_by_name(conn: &Connection, name: &str) -> Result<Option<AppRef>> {
    Ok(all_apps(conn).await?.into_iter().find(|a| a.name == name))
}

/// The app's top-level windows, in the app's order.
pub async fn top_levels(link: &crate::bus::Link, app: &AppRef) -> Result<Vec<TopLevel>> {
    let children = root_children(link, app).await?;
    read_top_levels(link, app, children).await
}

/// The windows among the app's root's `children`, each asked for its role,
/// states, title and box.
pub async fn read_top_levels(
    link: &crate::bus::Link,
    app: &AppRef,
    children: Vec<ObjRef>,
) -> Result<Vec<TopLevel>> {
    let read = children.into_iter().map(|obj| async move {
        let (conn, dest) = link.route(&app.bus);
        let path = obj.1.as_str();
        let (role, states, title, extents) = tokio::join!(
            call::<u32, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetRole", &()),
            call::<Vec<u32>, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetState", &()),
            bus::get_prop(conn, dest, path, IFACE_ACCESSIBLE, "Name"),
            top_level_box(link, app, &obj),
        );
        let title = title
            .ok()
            .and_then(|v| v.downcast_ref::<&str>().ok().map(str::to_string))
            .unwrap_or_default();
        Ok::<_, Error>(TopLevel {
            role: role?,
            states: StateSet::from_words(&states?),
            title,
            extents,
            obj,
        })
    });
    let mut out = Vec::new();
    for top in join_all(read).await {
        match top {
            Ok(top) if is_window(&top) => out.push(top),
            Ok(_) => {}
            // A window closing while it is read is simply not there any more.
            Err(e) if e.code == uidrive_core::ErrorCode::NoElement => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The app's top-level windows as the app's cache gives them, when it holds
/// every child of the app: role, states and title as the calls of
/// [`top_levels`] would answer them (a cache answer is read live), with
/// their boxes not asked (`extents` zero; see [`top_level_box`]). `None`
/// when the cache lacks one.
pub fn cached_top_levels(children: &[ObjRef], cache: &CacheItems) -> Option<Vec<TopLevel>> {
    let tops = children.iter().map(|obj| {
        let item = cache.get(obj.1.as_str())?;
        Some(TopLevel {
            obj: obj.clone(),
            role: item.role,
            title: item.name.clone(),
            states: item.states,
            extents: (0, 0, 0, 0),
        })
    });
    let tops: Option<Vec<TopLevel>> = tops.collect();
    Some(tops?.into_iter().filter(is_window).collect())
}

/// Whether the window `top` of `app` is a splash screen: GTK gives a
/// window's type hint as its `window-type` attribute, `splashscreen` for one
/// (LibreOffice's on Wayland, 648x200 and unnamed, shown while it starts;
/// on X11 its launcher draws the splash itself, off the bus).
pub async fn is_splash(link: &crate::bus::Link, app: &AppRef, top: &TopLevel) -> bool {
    let (conn, dest) = link.route(&app.bus);
    let attributes: Result<std::collections::HashMap<String, String>> = call(
        conn,
        dest,
        top.obj.1.as_str(),
        IFACE_ACCESSIBLE,
        "GetAttributes",
        &(),
    )
    .await;
    attributes.is_ok_and(|a| a.get("window-type").is_some_and(|t| t == "splashscreen"))
}

fn is_window(top: &TopLevel) -> bool {
    roles::is_window_role(top.role) && !top.states.has(st::DEFUNCT)
}

/// The children of the app's root: its top-level windows and whatever else it lists there.
pub async fn root_children(link: &crate::bus::Link, app: &AppRef) -> Result<Vec<ObjRef>> {
    let (conn, dest) = link.route(&app.bus);
    let mut children: Vec<ObjRef> =
        call(conn, dest, ROOT, IFACE_ACCESSIBLE, "GetChildren", &()).await?;
    children.retain(|child| !bus::is_null(child));
    Ok(children)
}

/// A top-level window's box, in the coordinates a read asks its elements'
/// in (so a read's answer for the window is the same); zero when it has none.
pub async fn top_level_box(
    link: &crate::bus::Link,
    app: &AppRef,
    obj: &ObjRef,
) -> (i32, i32, i32, i32) {
    let (conn, dest) = link.route(&app.bus);
    let coords = crate::profile::Profile::of(app).fields.coords;
    bus::get_extents(conn, dest, obj.1.as_str(), coords)
        .await
        .unwrap_or_default()
}

/// Whether process `pid` has ended: it is gone from /proc, or is a zombie
/// (it exited and its parent, perhaps this process, has not reaped it yet).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_none_or(|state| state == "Z" || state == "X"),
        Err(_) => true,
    }
}

/// The pid and every process descended from it, read from /proc.
pub fn pid_and_descendants(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(child) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // The parent pid is the second field after the parenthesised command name.
            if let Some(ppid) = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok())
            {
                parents.push((child, ppid));
            }
        }
    }
    let mut found = vec![pid];
    let mut at = 0;
    while at < found.len() {
        let p = found[at];
        found.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        at += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::{cached_top_levels, process_gone};
    use crate::fetch::{CachedItem, Ifaces};
    use crate::states::{st, StateSet};
    use std::collections::HashMap;
    use std::time::{Duration, Instant};

    fn cached(role: u32, name: &str, states: &[u32]) -> CachedItem {
        CachedItem {
            parent: "/org/a11y/atspi/accessible/root".into(),
            index: 0,
            role,
            name: name.into(),
            description: String::new(),
            child_count: 1,
            ifaces: Ifaces::default(),
            states: StateSet(states.iter().fold(0, |set, state| set | (1 << state))),
            accessible_id: Default::default(),
        }
    }

    #[test]
    fn top_levels_come_from_the_cache_only_when_it_holds_every_one() {
        let child = |path: &str| {
            (
                ":1.5".to_string(),
                zbus::zvariant::OwnedObjectPath::try_from(path).unwrap(),
            )
        };
        let children = [child("/frame"), child("/gone"), child("/label")];
        let mut cache: HashMap<String, CachedItem> = [
            ("/frame", cached(23, "Calculator", &[st::ACTIVE])),
            ("/gone", cached(23, "Closed", &[st::DEFUNCT])),
        ]
        .into_iter()
        .map(|(path, item)| (path.to_string(), item))
        .collect();
        assert!(
            cached_top_levels(&children, &cache).is_none(),
            "`/label` is not cached: the windows are asked"
        );
        cache.insert("/label".into(), cached(29, "a label", &[]));
        let tops = cached_top_levels(&children, &cache).expect("all are cached");
        // Windows only, and not the defunct one.
        assert_eq!(tops.len(), 1);
        assert_eq!(tops[0].obj, child("/frame"));
        assert_eq!((tops[0].role, tops[0].title.as_str()), (23, "Calculator"));
        assert!(tops[0].states.has(st::ACTIVE));
        assert_eq!(tops[0].extents, (0, 0, 0, 0), "boxes are not asked");
    }

    #[test]
    fn an_exited_child_is_gone_before_it_is_reaped() {
        assert!(!process_gone(std::process::id()));
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("true runs");
        let started = Instant::now();
        while !process_gone(child.id()) {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "`true` still runs"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // Not reaped yet: the exit status is still there to read.
        assert!(child.try_wait().expect("waits").is_some());
    }
}
