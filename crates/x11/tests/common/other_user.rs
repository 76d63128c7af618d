//! A second user of this machine, for the tests that prove what it cannot
//! reach (crates/x11/tests/private.rs, crates/cli/tests/private.rs).

use std::process::Command;

/// The second user's uid and gid, created on first use.
pub fn other_user() -> (u32, u32) {
    const NAME: &str = "uidrive-probe";
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, NAME]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    if id("-u").is_none() {
        // SAFETY: geteuid has no preconditions.
        assert_eq!(
            unsafe { libc::geteuid() },
            0,
            "this test creates a second user ({NAME}) with useradd and needs root; CI runs as root"
        );
        // Two tests may race to create it: whichever loses finds it made.
        let _ = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                NAME,
            ])
            .output();
    }
    match (id("-u"), id("-g")) {
        (Some(uid), Some(gid)) if uid != 0 => (uid, gid),
        other => panic!("could not create or find the user {NAME}: {other:?}"),
    }
}
