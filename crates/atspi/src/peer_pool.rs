//! Peer connections to apps, opened once per process and shared by its drivers.
//!
//! GTK's bridge (at-spi2-atk, which Firefox and LibreOffice use too) keeps
//! every peer connection it accepts for the rest of the app's life, closed
//! or not, and looks at each one on every turn of its main loop. Measured on
//! gtk3-widget-factory (docs/apps.md): 400 connections opened and closed one
//! after another left it answering a read 4× slower and 3 MB bigger, for
//! good. A test suite that attaches a driver per test to one running app
//! would slow it a little more with each test. So the connections to an app
//! are opened once per process, and every later driver takes the same ones.
//! They live on a runtime of their own, since a driver's runtime ends with
//! the driver, and the calls of drivers that use them run there too
//! ([`runtime`]).

use crate::bus::{connect_peer, socket_file, Bulk};
use std::collections::HashMap;
use std::time::Duration;
use zbus::Connection;

/// An app's peer connections: one to walk its trees, one for the fields of
/// a read where the app is safe for bulk reads ([`crate::bus::Link`]).
pub type Peers = (Connection, Option<Connection>);

struct Pool {
    /// The process that built `runtime`: a forked child has none of its threads.
    pid: u32,
    runtime: tokio::runtime::Runtime,
    /// By the app's peer address.
    peers: HashMap<String, Peers>,
}

static POOL: tokio::sync::Mutex<Option<Pool>> = tokio::sync::Mutex::const_new(None);

/// The pool's runtime and the process that built it, kept apart from
/// [`POOL`], which is held while connections open.
static RUNTIME: std::sync::Mutex<Option<(u32, tokio::runtime::Handle)>> =
    std::sync::Mutex::new(None);

/// The runtime the pool's connections are read on, once this process has
/// one. A driver runs its calls on an app with peer connections there, so
/// that each answer wakes the call waiting for it on the thread that read
/// it, rather than on another thread: gtk3-widget-factory's read took 8–10 %
/// less time so, in A/B runs in one process (docs/apps.md).
pub fn runtime() -> Option<tokio::runtime::Handle> {
    let runtime = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    runtime
        .as_ref()
        .filter(|(pid, _)| *pid == std::process::id())
        .map(|(_, handle)| handle.clone())
}

/// The peer connections to the app at `address`: the ones this process
/// already has when they still answer, else new ones. `None` when the app
/// takes none.
pub async fn peers(address: &str, bulk: Bulk) -> Option<Peers> {
    let mut pool = POOL.lock().await;
    let pid = std::process::id();
    if pool.as_ref().is_some_and(|p| p.pid != pid) {
        // Dropping a runtime waits on its threads, which stayed in the parent.
        std::mem::forget(pool.take());
    }
    if pool.is_none() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("uidrive-peers")
            .enable_all()
            .build()
            .ok()?;
        *RUNTIME.lock().unwrap_or_else(|e| e.into_inner()) = Some((pid, runtime.handle().clone()));
        *pool = Some(Pool {
            pid,
            runtime,
            peers: HashMap::new(),
        });
    }
    let pool = pool.as_mut()?;
    // An app that ended took its socket file with it.
    pool.peers
        .retain(|address, _| socket_file(address).is_none_or(|path| path.exists()));
    if let Some(peers) = pool.peers.get(address) {
        if answers(peers).await {
            return Some(peers.clone());
        }
    }
    let opening = pool.runtime.spawn(open(address.to_string(), bulk));
    let opened = opening.await.ok().flatten();
    match &opened {
        Some(peers) => pool.peers.insert(address.to_string(), peers.clone()),
        None => pool.peers.remove(address),
    };
    opened
}

async fn open(address: String, bulk: Bulk) -> Option<Peers> {
    let fields = async {
        if bulk == Bulk::All {
            connect_peer(&address, Some(bulk)).await
        } else {
            None
        }
    };
    let (walk, fields) = tokio::join!(connect_peer(&address, Some(bulk)), fields);
    Some((walk?, fields))
}

/// Whether both connections still reach the app (D-Bus's own `Peer.Ping`,
/// which the app's D-Bus library answers itself).
async fn answers((walk, fields): &Peers) -> bool {
    let ping = |conn: &Connection| {
        let conn = conn.clone();
        async move {
            let ping = conn.call_method(
                None::<&str>,
                "/",
                Some("org.freedesktop.DBus.Peer"),
                "Ping",
                &(),
            );
            matches!(
                tokio::time::timeout(Duration::from_secs(1), ping).await,
                Ok(Ok(_))
            )
        }
    };
    let fields = async {
        match fields {
            Some(conn) => ping(conn).await,
            None => true,
        }
    };
    let (walk, fields) = tokio::join!(ping(walk), fields);
    walk && fields
}
