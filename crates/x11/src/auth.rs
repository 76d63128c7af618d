//! The X authority cookie that makes a headless desktop its user's alone.
//!
//! Xvfb started with `-auth FILE` accepts only clients that present the
//! MIT-MAGIC-COOKIE-1 in that file; the file is in the desktop's runtime
//! directory (mode 0700), so no other user can read it. Clients find it
//! through `XAUTHORITY`, which [`crate::Desktop::env`] gives them; this
//! process's own connections read it through [`connect`], since the
//! process's environment is not the desktop's.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use x11rb::reexports::x11rb_protocol::parse_display::parse_display;
use x11rb::rust_connection::{ConnectError, DefaultStream, RustConnection};

/// The only authorization protocol uidrive writes and reads.
const MIT_MAGIC_COOKIE: &[u8] = b"MIT-MAGIC-COOKIE-1";
/// `FamilyWild`: the entry is for any address the display is reached at.
const FAMILY_WILD: u16 = 0xffff;

/// A fresh cookie: 16 bytes from the kernel's random source.
pub(crate) fn new_cookie() -> io::Result<[u8; 16]> {
    let mut cookie = [0u8; 16];
    fs::File::open("/dev/urandom")?.read_exact(&mut cookie)?;
    Ok(cookie)
}

/// Writes an authority file holding `cookie` for display `number` (empty:
/// any display), mode 0600, replacing the file in one rename so a client
/// never reads half of it.
pub(crate) fn write_file(path: &Path, number: &str, cookie: &[u8]) -> io::Result<()> {
    let mut entry = Vec::new();
    entry.extend_from_slice(&FAMILY_WILD.to_be_bytes());
    for field in [b"".as_slice(), number.as_bytes(), MIT_MAGIC_COOKIE, cookie] {
        let len = u16::try_from(field.len()).map_err(io::Error::other)?;
        entry.extend_from_slice(&len.to_be_bytes());
        entry.extend_from_slice(field);
    }
    let staged = path.with_extension("new");
    let mut file = OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&staged)?;
    file.write_all(&entry)?;
    file.sync_all()?;
    fs::rename(&staged, path)
}

/// The MIT-MAGIC-COOKIE-1 of an authority file for display `number`: the
/// first entry of that protocol whose display is `number` or any.
fn read_cookie(path: &Path, number: &str) -> io::Result<Option<Vec<u8>>> {
    let bytes = fs::read(path)?;
    let mut rest = bytes.as_slice();
    let field = |rest: &mut &[u8]| -> Option<Vec<u8>> {
        let len = u16::from_be_bytes([*rest.first()?, *rest.get(1)?]) as usize;
        let value = rest.get(2..2 + len)?.to_vec();
        *rest = &rest[2 + len..];
        Some(value)
    };
    while rest.len() >= 2 {
        rest = &rest[2..]; // the family: the file is ours, every entry is for this machine
        let (Some(_address), Some(entry_number), Some(name), Some(data)) = (
            field(&mut rest),
            field(&mut rest),
            field(&mut rest),
            field(&mut rest),
        ) else {
            break;
        };
        if name == MIT_MAGIC_COOKIE
            && (entry_number.is_empty() || entry_number == number.as_bytes())
        {
            return Ok(Some(data));
        }
    }
    Ok(None)
}

/// Connects to `display` (as `:3`), presenting the cookie of `xauthority`
/// when one is given, else as libxcb would (`XAUTHORITY` of this process,
/// or `~/.Xauthority`).
pub(crate) fn connect(
    display: &str,
    xauthority: Option<&Path>,
) -> std::result::Result<(RustConnection, usize), String> {
    let Some(file) = xauthority else {
        return RustConnection::connect(Some(display)).map_err(|e| e.to_string());
    };
    let parsed = parse_display(Some(display)).map_err(|e| e.to_string())?;
    let cookie = read_cookie(file, &parsed.display.to_string())
        .map_err(|e| format!("cannot read the X authority file {}: {e}", file.display()))?
        .ok_or_else(|| {
            format!(
                "the X authority file {} has no cookie for {display}",
                file.display()
            )
        })?;
    let mut last = None;
    for address in parsed.connect_instruction() {
        match DefaultStream::connect(&address) {
            Ok((stream, _)) => {
                let screen = parsed.screen.into();
                return RustConnection::connect_to_stream_with_auth_info(
                    stream,
                    screen,
                    MIT_MAGIC_COOKIE.to_vec(),
                    cookie,
                )
                .map(|conn| (conn, screen))
                .map_err(|e: ConnectError| e.to_string());
            }
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(e) => e.to_string(),
        None => format!("{display} names no address to connect to"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_cookie_reads_back_for_its_display_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("Xauthority");
        write_file(&file, "", b"0123456789abcdef").unwrap();
        assert_eq!(
            read_cookie(&file, "7").unwrap().as_deref(),
            Some(&b"0123456789abcdef"[..])
        );
        write_file(&file, "7", b"fedcba9876543210").unwrap();
        assert_eq!(
            read_cookie(&file, "7").unwrap().as_deref(),
            Some(&b"fedcba9876543210"[..])
        );
        assert_eq!(read_cookie(&file, "8").unwrap(), None);
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
