//! A real app on a private headless desktop, and waits with deadlines.

#![allow(dead_code)]

pub mod java;

use std::process::Child;
use std::time::{Duration, Instant};
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_core::protocol::{
    ActParams, Action, ElementId, IdleParams, Node, Role, State, Tree, TreeParams,
};
use uidrive_core::{Driver, Result};
use uidrive_x11::Desktop;

/// How long any wait in these tests may take before it fails.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// An app launched by the driver on a desktop of its own. Dropping it kills
/// the app, then ends the desktop.
pub struct Running {
    pub driver: AtspiDriver,
    pub child: Child,
    pub desktop: Desktop,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn options(desktop: &Desktop) -> LaunchOptions {
    LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(30),
    }
}

/// Starts a desktop and launches `argv` on it.
pub fn launch(argv: &[&str]) -> Running {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let (driver, child) = AtspiDriver::launch(&argv, &options(&desktop))
        .unwrap_or_else(|e| panic!("{} launches: {e} ({})", argv[0], e.suggestion));
    Running {
        driver,
        child,
        desktop,
    }
}

impl Running {
    pub fn tree(&self) -> Tree {
        self.driver
            .tree(&TreeParams::default())
            .expect("the window's tree reads")
    }

    pub fn idle(&self) {
        self.driver
            .idle(&IdleParams::within(None, 10_000))
            .expect("the app settles");
    }

    pub fn act(&self, id: ElementId, action: Action) -> Result<()> {
        self.driver.act(&ActParams::on(id, action))
    }

    pub fn act_text(&self, id: ElementId, action: Action, text: &str) -> Result<()> {
        self.driver.act(&ActParams::on(id, action).with_text(text))
    }

    /// Settles and reads until a read takes the app's cache answer kept from
    /// the read before it (GTK's apps while they announce no change), and
    /// checks that it reads as that fresh read did. Returns the kept read.
    pub fn read_until_kept(&self) -> Tree {
        let mut fresh = self.tree();
        for _ in 0..10 {
            self.idle();
            let served = self.driver.reads_from_kept_cache();
            let tree = self.tree();
            if self.driver.reads_from_kept_cache() > served {
                assert_eq!(
                    tree.nodes, fresh.nodes,
                    "the kept answer reads as a fresh one"
                );
                return tree;
            }
            fresh = tree;
        }
        panic!("no read of the quiet window took the kept cache answer");
    }

    /// Checks that the next read shows a change another driver made
    /// (`shows`), asking the app's cache again rather than taking the answer
    /// kept from before the change.
    pub fn next_read_shows(&self, change: &str, shows: impl Fn(&Tree) -> bool) {
        let served = self.driver.reads_from_kept_cache();
        assert!(shows(&self.tree()), "the next read shows {change}");
        assert_eq!(
            self.driver.reads_from_kept_cache(),
            served,
            "the read after {change} asked the cache again"
        );
    }

    /// Settles, then reads the tree until `check` holds, failing after [`DEADLINE`].
    pub fn wait_for(&self, what: &str, check: impl Fn(&Tree) -> bool) -> Tree {
        let started = Instant::now();
        loop {
            self.idle();
            let tree = self.tree();
            if check(&tree) {
                return tree;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "{what}: not so after {DEADLINE:?}"
            );
        }
    }
}

/// The first node with `role` and `label` that passes `also`.
pub fn find<'a>(tree: &'a Tree, role: Role, label: &str, also: impl Fn(&Node) -> bool) -> &'a Node {
    tree.nodes
        .iter()
        .find(|n| n.role == role && n.label.as_deref() == Some(label) && also(n))
        .unwrap_or_else(|| {
            panic!(
                "no {role} labelled {label:?} that fits, among {} nodes",
                tree.nodes.len()
            )
        })
}

pub fn node(tree: &Tree, id: ElementId) -> &Node {
    tree.node(id)
        .unwrap_or_else(|| panic!("element {id} is gone from the tree"))
}

pub fn enabled(n: &Node) -> bool {
    !n.has_state(&State::Disabled)
}

pub fn shown(n: &Node) -> bool {
    !n.has_state(&State::Offscreen)
}

/// A process's resident memory in kB, as /proc says it now.
pub fn rss_kb(pid: u32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// How many different colours a PNG shows (counted up to `cap`).
pub fn colours(png: &[u8], cap: usize) -> (u32, u32, usize) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    let step = info.color_type.samples();
    let mut seen = std::collections::HashSet::new();
    for px in buf[..info.buffer_size()].chunks(step) {
        seen.insert(px[..3].to_vec());
        if seen.len() >= cap {
            break;
        }
    }
    (info.width, info.height, seen.len())
}
