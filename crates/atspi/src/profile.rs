//! What the driver knows of an app, decided once when the app is found: its
//! toolkit, which calls are safe to ask it, how many at once, and what its
//! cache and events can be trusted for. The read planner ([`crate::plan`])
//! asks the profile rather than the toolkit's name, so what an app may be
//! asked, and what may be kept of its answers, is said in one place
//! (docs/apps.md has the measurements behind each field).

use crate::discovery::{AppRef, Toolkit};
use crate::plan::{ActionsRead, Descriptions, FieldRules};
use crate::states::st;
use crate::visible::Views;

/// How far the app's cache answer (`Cache.GetItems`) may be kept between reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKept {
    /// Never: the toolkit has no cache, or does not announce its changes.
    Never,
    /// Until any event of the app: the toolkit sends one for every change
    /// to what the answer holds whether or not anyone listens (GTK 4).
    UntilEvent,
    /// Until any event of the app, once the app is known to have learnt that
    /// this driver listens (GTK's bridge sends only registered events).
    UntilEventOnceRegistered,
}

/// One app's profile.
#[derive(Debug, Clone)]
pub struct Profile {
    pub cache_kept: CacheKept,
    /// Whether a table's cells, asked by place (`GetAccessibleAt`), may be
    /// kept by place for later reads. Only where the app makes a new object
    /// at every ask and an object stays bound to its place (LibreOffice
    /// Calc: a cell is an address, and asking again grows the app by
    /// megabytes). Elsewhere the object at a place changes with no event
    /// when the view sorts, filters or gains rows (GTK 3 tree views, Qt item
    /// views: gnome-system-monitor's rows after a click on a column header),
    /// so every read asks the table again.
    pub cells_by_place: bool,
    /// Whether cells asked afresh take the id of their place, not of their
    /// object (Qt, which makes a new object at every ask): see
    /// [`crate::ids::name_by_place`].
    pub ids_by_place: bool,
    /// Whether a locator's read asks role, name and states of every element
    /// first and the other fields only of its candidates (apps behind GTK's
    /// bridge, whose cache answers the first part in one call).
    pub lean: bool,
    /// Whether the cache's items place each element among its parent's
    /// children, so that the children of a cached element are known
    /// without asking (GTK's bridges).
    pub cache_places_children: bool,
    /// What each element is asked beyond the basics.
    pub fields: FieldRules,
    /// How many of a read's calls may be in flight to the app at once
    /// ([`crate::gate`]).
    pub in_flight: usize,
    /// Whether the boxes of a whole read may serve the next while the app
    /// sends no event (no box changed) and the driver sends no action: GTK 3,
    /// whose bridge sends `BoundsChanged` at every new allocation of a widget
    /// to a client that registered for it, as this driver does. Its boxes
    /// cost the app most of a read (each `GetExtents` is a round trip to the
    /// X server). Not LibreOffice behind the same bridge, nor GTK 2.
    pub boxes_kept: bool,
}

impl Profile {
    pub fn of(app: &AppRef) -> Profile {
        let gtk_bridge = app.behind_gtk_bridge();
        let cache_kept = match app.toolkit {
            Toolkit::Gtk4 => CacheKept::UntilEvent,
            Toolkit::Other if gtk_bridge => CacheKept::UntilEventOnceRegistered,
            Toolkit::Other => CacheKept::Never,
        };
        Profile {
            cache_kept,
            cells_by_place: is_libreoffice(&app.name),
            ids_by_place: crate::qt::is_qt(app),
            lean: gtk_bridge,
            cache_places_children: gtk_bridge,
            fields: field_rules(app),
            in_flight: in_flight(app),
            boxes_kept: gtk_bridge && app.toolkit == Toolkit::Other && !is_libreoffice(&app.name),
        }
    }
}

impl Profile {
    /// How a read asks the children on screen of a view too big to walk.
    pub fn views(&self) -> Views {
        Views {
            keep_cells: self.cells_by_place,
            ids_by_place: self.ids_by_place,
            coords: self.fields.coords,
        }
    }
}

/// LibreOffice names its app `soffice` (or after its binary) on the bus.
pub(crate) fn is_libreoffice(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("soffice") || name.starts_with("libreoffice")
}

fn field_rules(app: &AppRef) -> FieldRules {
    FieldRules {
        extents_need: match app.toolkit {
            Toolkit::Gtk4 => Some(st::VISIBLE),
            Toolkit::Other if app.behind_gtk_bridge() => Some(st::SHOWING),
            Toolkit::Other => None,
        },
        boxes_nest: app.toolkit == Toolkit::Gtk4,
        actions: match app.toolkit {
            Toolkit::Gtk4 => ActionsRead::WithBox,
            Toolkit::Other => ActionsRead::WithState(st::SHOWING),
        },
        ids: app.has_ids(),
        web_attributes: app.gives_web_attributes(),
        descriptions: if app.behind_gail() {
            Descriptions::OfUnnamed
        } else {
            Descriptions::All
        },
        coords: if app.toolkit.window_relative_extents() {
            1
        } else {
            0
        },
    }
}

/// How many of a read's calls may be in flight to the app at once.
fn in_flight(_app: &AppRef) -> usize {
    if let Some(limit) = std::env::var("UIDRIVE_ATSPI_IN_FLIGHT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return limit;
    }
    64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(name: &str, toolkit_name: &str, toolkit: Toolkit) -> AppRef {
        AppRef {
            bus: ":1.1".into(),
            pid: 1,
            name: name.into(),
            toolkit,
            toolkit_name: toolkit_name.into(),
        }
    }

    #[test]
    fn cells_are_kept_by_place_only_in_libreoffice() {
        let calc = Profile::of(&app("soffice", "gtk", Toolkit::Other));
        assert!(calc.cells_by_place && calc.lean);
        let monitor = Profile::of(&app("gnome-system-monitor", "gtk", Toolkit::Other));
        assert!(!monitor.cells_by_place);
        let okular = Profile::of(&app("okular", "Qt", Toolkit::Other));
        assert!(!okular.cells_by_place && !okular.lean);
        assert_eq!(okular.cache_kept, CacheKept::Never);
        let calculator = Profile::of(&app("gnome-calculator", "gtk", Toolkit::Gtk4));
        assert_eq!(calculator.cache_kept, CacheKept::UntilEvent);
        assert_eq!(monitor.cache_kept, CacheKept::UntilEventOnceRegistered);
        assert_eq!(monitor.fields.descriptions, Descriptions::All);
        let gimp = Profile::of(&app("gimp", "GAIL", Toolkit::Other));
        assert_eq!(gimp.fields.descriptions, Descriptions::OfUnnamed);
    }
}
