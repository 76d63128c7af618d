//! uidrive's Linux driver: any accessible app (GTK 3 and 4, Qt, Chromium and
//! Electron with accessibility on, Firefox, LibreOffice) through AT-SPI2 over
//! D-Bus, with no change to the app.
//!
//! - [`AtspiDriver`] implements [`uidrive_core::Driver`]: launch a command
//!   line with accessibility on ([`AtspiDriver::launch`], [`launch_app`]), or
//!   attach to a running app by pid or by accessible name.
//! - A tree read is planned, then made. `plan` decides every call a read
//!   makes from the app's `profile` (what it may be asked and what of its
//!   answers may be kept), what is asked and what earlier reads kept; `exec`
//!   makes the calls, the window's children first, then every element's
//!   fields, all through the app's `gate`, the one limit on calls in flight.
//!   GTK 3 is read over its direct peer socket; the peer connections to an
//!   app are opened once per process and shared by its drivers (GTK's
//!   bridge keeps every one it accepted for good). A GTK app's cache answer
//!   is kept for the next read until the app announces any change (`kept`);
//!   a view's cells are asked again at every read except in LibreOffice
//!   (`visible`). Bounds are in the X server's pixels for apps that scale
//!   themselves (`scale`). While answers arrive on a peer socket, the thread
//!   reading it polls rather than sleeps between them (`awake`).
//! - `idle` listens to the app's accessibility events (not bounds changes) and
//!   answers once any late action (GTK 4's `DoAction`) showed its effect and
//!   a round trip to the app saw no event arrive.
//! - `input` and `capture` go through the X server (`uidrive_x11`).
//!
//! Set `UIDRIVE_ATSPI_STATS=1` to print, per tree read, the calls made by
//! method and where the time went. [`record_calls`] and
//! [`AtspiDriver::app_answer_time`] measure how long the app itself takes to
//! answer a read's calls (for the benchmark).
//!
//! Tests: `cargo test -p uidrive-atspi` starts a private headless desktop per
//! test and drives gtk3-widget-factory, gnome-calculator, gtk4-demo and zenity.

mod actions;
mod awake;
mod bus;
mod desktop;
mod discovery;
mod display;
mod driver;
mod events;
mod exec;
mod fetch;
mod follow;
mod gate;
mod ids;
mod java;
mod kept;
mod lanes;
mod launch;
mod manage;
mod menu;
mod no_tree;
mod office;
mod one_widget;
mod peer_pool;
mod peer_socket;
mod plan;
mod profile;
mod qt;
mod ready;
mod roles;
mod scale;
mod services;
mod states;
mod stats;
mod swaypopup;
mod swaywm;
mod tree;
mod visible;
mod windows;
mod xwayland;

pub use driver::{AtspiDriver, LaunchOptions};
pub use ids::element_id;
pub use launch::{
    accessibility_env, java_bridge_env, java_tool_options, launch_any, launch_any_with, launch_app,
    Launched,
};
pub use manage::BusApps;
pub use no_tree::{NoTree, NoTreeDriver};
pub use ready::Readiness;
pub use roles::protocol_role;
pub use services::{
    DesktopServices, Notification, NotificationAction, TrayItem, TrayMenuItem, NOTIFICATIONS_NAME,
    WATCHER_NAME,
};
pub use stats::{record_calls, take_recorded_calls, RecordedCalls};
