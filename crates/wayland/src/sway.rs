//! sway's IPC (i3's protocol over a Unix socket): where each window is on
//! the output and which process shows it, which a Wayland client itself
//! never learns, and commands such as focusing a window.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use uidrive_core::{Error, Result};

const MAGIC: &[u8] = b"i3-ipc";
const RUN_COMMAND: u32 = 0;
const GET_TREE: u32 = 4;
const IPC_TIMEOUT: Duration = Duration::from_secs(10);

/// A window (a sway "view") as sway shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// sway's id of the window's container.
    pub id: i64,
    pub pid: u32,
    pub title: String,
    pub app_id: String,
    /// Where the window's surface starts on the output (what the client
    /// counts its own positions from), and its size.
    pub surface: (i32, i32),
    /// The window's content (its `xdg_surface` geometry) on the output.
    pub content: (i32, i32, u32, u32),
    pub focused: bool,
    pub floating: bool,
    /// An X client's window, shown through Xwayland (sway's `shell`).
    pub xwayland: bool,
    /// Over its whole output (`fullscreen_mode`).
    pub fullscreen: bool,
    /// Hidden in sway's scratchpad: what uidrive calls minimized.
    pub scratchpad: bool,
    /// Tiled, and its container fills its workspace: what uidrive calls
    /// maximized (a tiled window alone on its workspace).
    pub fills_workspace: bool,
    /// The rect of the output its workspace is on, in layout coordinates:
    /// what sway keeps its popups inside.
    pub output: (i32, i32, u32, u32),
}

/// Where a view sits in sway's tree, as the walk down to it learns.
#[derive(Clone, Copy, Default)]
struct Around {
    floating: bool,
    scratchpad: bool,
    /// The rect of its workspace.
    workspace: (i64, i64, i64, i64),
    /// The rect of its workspace's output.
    output: (i64, i64, i64, i64),
}

fn ipc(socket: &Path, kind: u32, payload: &str) -> Result<Value> {
    let fail = |e: std::io::Error| {
        Error::failed(format!(
            "sway's IPC socket {} did not answer: {e}",
            socket.display()
        ))
        .with_suggestion("check that the headless Wayland desktop (sway) still runs")
    };
    let mut stream = UnixStream::connect(socket).map_err(fail)?;
    stream.set_read_timeout(Some(IPC_TIMEOUT)).map_err(fail)?;
    stream.set_write_timeout(Some(IPC_TIMEOUT)).map_err(fail)?;
    let mut message = MAGIC.to_vec();
    message.extend((payload.len() as u32).to_le_bytes());
    message.extend(kind.to_le_bytes());
    message.extend(payload.as_bytes());
    stream.write_all(&message).map_err(fail)?;
    let mut header = [0u8; 14];
    stream.read_exact(&mut header).map_err(fail)?;
    if &header[..6] != MAGIC {
        return Err(Error::failed(
            "sway's IPC answered something that is not i3-ipc",
        ));
    }
    let len = u32::from_le_bytes(header[6..10].try_into().expect("4 bytes")) as usize;
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).map_err(fail)?;
    serde_json::from_slice(&body)
        .map_err(|e| Error::failed(format!("sway's IPC answered JSON that does not parse: {e}")))
}

/// Every window sway shows.
pub fn views(socket: &Path) -> Result<Vec<View>> {
    let tree = ipc(socket, GET_TREE, "")?;
    let mut out = Vec::new();
    walk(&tree, Around::default(), &mut out);
    Ok(out)
}

/// Runs a sway command (`[pid=42] focus`), failing with what sway said.
pub fn command(socket: &Path, command: &str) -> Result<()> {
    let answer = ipc(socket, RUN_COMMAND, command)?;
    let failed = answer
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["success"] != Value::Bool(true));
    match failed {
        Some(r) => Err(Error::failed(format!(
            "sway refused `{command}`: {}",
            r["error"].as_str().unwrap_or("no reason given")
        ))),
        None => Ok(()),
    }
}

fn rect(v: &Value) -> (i64, i64, i64, i64) {
    let n = |k: &str| v[k].as_i64().unwrap_or(0);
    (n("x"), n("y"), n("width"), n("height"))
}

fn walk(node: &Value, mut around: Around, out: &mut Vec<View>) {
    if node["type"] == "output" {
        around.output = rect(&node["rect"]);
    }
    if node["type"] == "workspace" {
        around.workspace = rect(&node["rect"]);
        // sway keeps the hidden scratchpad windows on this workspace of its own.
        around.scratchpad = node["name"] == "__i3_scratch";
    }
    if let Some(pid) = node["pid"].as_u64() {
        let whole = rect(&node["rect"]);
        let (rx, ry, _, _) = whole;
        let (wx, wy, ww, wh) = rect(&node["window_rect"]);
        // `geometry` x/y: where the content starts inside the surface
        // (client-side shadows and borders come before it).
        let (gx, gy, _, _) = rect(&node["geometry"]);
        let (cx, cy) = (rx + wx, ry + wy);
        out.push(View {
            id: node["id"].as_i64().unwrap_or(0),
            pid: pid as u32,
            title: node["name"].as_str().unwrap_or("").to_string(),
            app_id: node["app_id"].as_str().unwrap_or("").to_string(),
            surface: ((cx - gx) as i32, (cy - gy) as i32),
            content: (cx as i32, cy as i32, ww.max(0) as u32, wh.max(0) as u32),
            focused: node["focused"] == Value::Bool(true),
            floating: around.floating,
            xwayland: node["shell"] == "xwayland",
            fullscreen: node["fullscreen_mode"].as_i64().unwrap_or(0) != 0,
            scratchpad: around.scratchpad,
            fills_workspace: !around.floating && !around.scratchpad && whole == around.workspace,
            output: {
                let (ox, oy, ow, oh) = around.output;
                (ox as i32, oy as i32, ow.max(0) as u32, oh.max(0) as u32)
            },
        });
    }
    for child in node["nodes"].as_array().into_iter().flatten() {
        walk(child, around, out);
    }
    let floating = Around {
        floating: true,
        ..around
    };
    for child in node["floating_nodes"].as_array().into_iter().flatten() {
        walk(child, floating, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_come_with_where_their_surface_and_content_are() {
        let tree = serde_json::json!({
            "id": 1, "rect": {"x": 0, "y": 0, "width": 1920, "height": 1200},
            "nodes": [{"id": 3, "type": "workspace", "name": "1",
                "rect": {"x": 0, "y": 0, "width": 1920, "height": 1200},
                "nodes": [{
                "id": 7, "pid": 42, "name": "Untitled 1 - Mousepad", "app_id": "mousepad",
                "focused": true,
                "rect": {"x": 0, "y": 0, "width": 1920, "height": 1200},
                "window_rect": {"x": 0, "y": 0, "width": 1920, "height": 1200},
                "geometry": {"x": 26, "y": 23, "width": 640, "height": 480}
            }]}, {"id": 4, "type": "workspace", "name": "__i3_scratch",
                "rect": {"x": 0, "y": 0, "width": 1920, "height": 1200},
                "floating_nodes": [{
                "id": 8, "pid": 43, "name": "Hidden", "fullscreen_mode": 0,
                "rect": {"x": 0, "y": 0, "width": 1920, "height": 1200},
                "window_rect": {"x": 0, "y": 0, "width": 1920, "height": 1200},
                "geometry": {"x": 0, "y": 0, "width": 1920, "height": 1200}
            }]}],
            "floating_nodes": []
        });
        let mut views = Vec::new();
        walk(&tree, Around::default(), &mut views);
        assert_eq!(views.len(), 2);
        let v = &views[0];
        assert_eq!((v.pid, v.id, v.focused, v.floating), (42, 7, true, false));
        assert_eq!(v.surface, (-26, -23));
        assert_eq!(v.content, (0, 0, 1920, 1200));
        assert!(!v.xwayland, "no shell named: a Wayland client");
        assert!(v.fills_workspace && !v.scratchpad && !v.fullscreen);
        let hidden = &views[1];
        assert!(hidden.scratchpad && hidden.floating && !hidden.fills_workspace);
    }
}
