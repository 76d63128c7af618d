//! The protocol's conformance suite against `serve` over the Linux driver,
//! with a real app (gtk3-widget-factory) behind it.

use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::{conformance, serve};
use uidrive_x11::Desktop;

#[test]
fn the_linux_driver_served_on_a_socket_passes_the_conformance_suite() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let options = LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(30),
    };
    let app = launch_app(&["gtk3-widget-factory".to_string()], &options).expect("the app launches");
    let socket = desktop.runtime_dir().join("conformance.sock");
    let server = serve(app.driver().clone(), &socket).expect("the server listens");
    let report = conformance::run(&socket);
    assert!(report.passed(), "{report}");
    server.stop();
    app.close().unwrap();
}
