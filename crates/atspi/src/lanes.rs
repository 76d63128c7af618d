//! Calls that run the app's own code — an action, a focus, a value or text
//! change — made so that a handler running a nested (modal) loop never
//! blocks the app.
//!
//! GTK's bridge (at-spi2-atk: GTK 3 and 2, wxGTK, LibreOffice, Java's ATK
//! wrapper) runs a `DoAction` inside libdbus's dispatch of the connection
//! the call came on: it answers first, then calls the widget, whose handler
//! may run `gtk_dialog_run` or wx's `ShowModal`. While that nested loop
//! runs, libdbus dispatches nothing more on that connection, and a second
//! dispatch of it waits for the first forever. Every key the app then gets
//! goes to its key listener, which asks the registry over the app's bus
//! connection and, waiting for the answer, sets up every connection anew
//! and dispatches what each holds (`send_and_allow_reentry` in
//! at-spi2-core's atk-adaptor/event.c). Measured with a PyGObject button
//! calling `Gtk.MessageDialog.run()` pressed over the bus, then `key
//! Enter`: the app's main thread waits in `dbus_connection_dispatch` on
//! the lock its own outer dispatch holds (gdb: `pthread_cond_wait` under
//! the bridge's key listener under `gtk_dialog_run` under
//! `dbus_connection_dispatch`), for good; before the key, every client's
//! calls over the bus went unanswered (pyatspi's too).
//!
//! So such calls go over a lane: a direct connection to the app used for
//! nothing else. A lane whose call may have started a nested loop is held:
//! nothing more is sent on it (a message waiting there would be dispatched
//! by the key listener's new setup, and deadlock) until the app shows no
//! more modal windows than it did before that call. The next call takes
//! another lane, opened when none is free; GTK keeps every connection it
//! accepted, so lanes are shared by every driver of the process and opened
//! only while the ones there are held. Reads, the bus and the registry's
//! key replies stay free, so the dialog is read, and answered by real keys,
//! clicks or actions.
//!
//! Toolkits that answer after the handler returns (Qt) and that take no
//! direct connections are called over the bus, as before; a call that has
//! not answered after a moment while the app answers another round trip is
//! running a nested loop (a Qt dialog's `exec`), and is not waited for.

use crate::bus::{self, ObjRef, IFACE_ACCESSIBLE};
use crate::discovery::{self, ROOT};
use crate::driver::Inner;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uidrive_core::Result;
use zbus::zvariant::DynamicType;
use zbus::Connection;

/// AT-SPI's state of a window that blocks input to the app's other windows.
const MODAL: u32 = 16;

/// How long a call that runs the app's code is waited for before the app
/// is asked, over another way, whether it still answers: a nested loop
/// answers that, a frozen app does not.
const ANSWER_SOON: Duration = Duration::from_millis(300);

/// The lanes to one app, shared by every driver of the process.
pub struct Lanes {
    address: String,
    lanes: tokio::sync::Mutex<Vec<Lane>>,
}

struct Lane {
    conn: Connection,
    /// Set while the lane's last call may still run in a nested loop: the
    /// lane is free again once the app shows no more modal windows than this.
    held_above: Option<usize>,
}

/// Every app's lanes, by the app's peer address, with the process that
/// opened them (a forked child has none of their threads).
static ALL: Mutex<Vec<(u32, String, Arc<Lanes>)>> = Mutex::new(Vec::new());

/// The lanes to the app whose direct connections are at `address`.
pub fn for_app(address: &str) -> Arc<Lanes> {
    let mut all = ALL.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    // Lanes of another process, or of an app that ended (its socket went).
    all.retain(|(owner, address, _)| {
        *owner == pid && bus::socket_file(address).is_none_or(|path| path.exists())
    });
    if let Some((_, _, lanes)) = all.iter().find(|(_, a, _)| a == address) {
        return lanes.clone();
    }
    let lanes = Arc::new(Lanes {
        address: address.to_string(),
        lanes: tokio::sync::Mutex::new(Vec::new()),
    });
    all.push((pid, address.to_string(), lanes.clone()));
    lanes
}

impl Lanes {
    /// How many lanes are open, and how many of them are held.
    pub async fn counts(&self) -> (usize, usize) {
        let lanes = self.lanes.lock().await;
        let held = lanes.iter().filter(|l| l.held_above.is_some()).count();
        (lanes.len(), held)
    }

    /// A lane free for the next call, held until the app shows no more
    /// modal windows than it does now; `None` if none can be opened.
    async fn take(&self, inner: &Inner) -> Result<Option<Connection>> {
        let mut lanes = self.lanes.lock().await;
        let modal = modal_windows(inner).await?;
        for lane in lanes.iter_mut() {
            if lane.held_above.is_some_and(|above| modal <= above) {
                lane.held_above = None;
            }
        }
        let at = match lanes.iter().position(|l| l.held_above.is_none()) {
            Some(at) => at,
            None => {
                let Some(conn) = bus::connect_peer(&self.address, None).await else {
                    return Ok(None);
                };
                lanes.push(Lane {
                    conn,
                    held_above: None,
                });
                lanes.len() - 1
            }
        };
        lanes[at].held_above = Some(modal);
        Ok(Some(lanes[at].conn.clone()))
    }
}

/// The app's windows that are modal and shown.
async fn modal_windows(inner: &Inner) -> Result<usize> {
    let sets_showing = inner.app.toolkit.sets_showing();
    let tops = discovery::top_levels(&inner.link, &inner.app).await?;
    Ok(tops
        .iter()
        .filter(|t| t.states.has(MODAL) && t.states.is_shown(sets_showing))
        .count())
}

/// Calls `iface.method(body)` on the object `path` of `dest`, a call that
/// runs the app's own code (see the module's doc). `None` when the app went
/// on answering other calls while this one ran on (its handler runs a
/// nested loop, as a modal dialog does): its answer is not waited for.
pub async fn call<R, B>(
    inner: &Inner,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<Option<R>>
where
    R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
    B: serde::Serialize + DynamicType,
{
    let lane = match &inner.lanes {
        Some(lanes) if dest == inner.app.bus => lanes.take(inner).await?,
        _ => None,
    };
    let (conn, dest) = match &lane {
        Some(conn) => (conn, ""),
        None => (&inner.conn, dest),
    };
    answered_or_running(
        bus::call(conn, dest, path, iface, method, body),
        still_answers(inner),
    )
    .await
}

/// The call's answer, or `None` when `probe`, asked once the call has
/// waited [`ANSWER_SOON`], is answered first. A probe that fails leaves the
/// call to its own limit (a frozen app answers neither).
async fn answered_or_running<R>(
    call: impl Future<Output = Result<R>>,
    probe: impl Future<Output = Result<()>>,
) -> Result<Option<R>> {
    tokio::pin!(call);
    let probe = async {
        tokio::time::sleep(ANSWER_SOON).await;
        probe.await
    };
    tokio::select! {
        answer = &mut call => answer.map(Some),
        probed = probe => match probed {
            Ok(()) => Ok(None),
            Err(_) => call.await.map(Some),
        },
    }
}

/// [`call`] for an answer that says whether the app did it: one not waited
/// for counts as done (the app took the call and runs its handler).
pub async fn call_done<B>(
    inner: &Inner,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<bool>
where
    B: serde::Serialize + DynamicType,
{
    let answer = call::<bool, B>(inner, dest, path, iface, method, body).await?;
    Ok(answer.unwrap_or(true))
}

/// A round trip to the app's root over the way reads take.
fn still_answers(inner: &Inner) -> impl Future<Output = Result<()>> + '_ {
    let root: ObjRef = (
        inner.app.bus.clone(),
        zbus::zvariant::OwnedObjectPath::try_from(ROOT).expect("the root's path is valid"),
    );
    async move {
        let (conn, dest) = inner.link.route(&root.0);
        bus::call::<u32, _>(
            conn,
            dest,
            root.1.as_str(),
            IFACE_ACCESSIBLE,
            "GetRole",
            &(),
        )
        .await
        .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::Error;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_call_still_running_while_the_app_answers_is_not_waited_for() {
        runtime().block_on(async {
            let never = std::future::pending::<Result<bool>>();
            let answered = answered_or_running(never, async { Ok(()) }).await;
            assert_eq!(answered.unwrap(), None);
        });
    }

    #[test]
    fn an_answer_that_comes_is_taken() {
        runtime().block_on(async {
            let answered = answered_or_running(async { Ok(true) }, async { Ok(()) }).await;
            assert_eq!(answered.unwrap(), Some(true));
            let late = async {
                tokio::time::sleep(ANSWER_SOON * 2).await;
                Ok(false)
            };
            // The probe failing (a frozen app) leaves the call its own limit.
            let answered =
                answered_or_running(late, async { Err(Error::timeout("no answer")) }).await;
            assert_eq!(answered.unwrap(), Some(false));
        });
    }
}
