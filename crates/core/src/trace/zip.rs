//! The smallest zip a trace needs: entries stored as they are (PNGs are
//! compressed already), written in one pass and read back through the
//! central directory. Any unzip tool opens the files this writes.

use crate::error::{Error, Result};

/// The CRC-32 of zip (IEEE, reflected), by table.
fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = [0u32; 256];
        for (n, slot) in table.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        table
    });
    let mut crc = !0u32;
    for &byte in data {
        crc = table[((crc ^ byte as u32) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

/// A zip archive of stored entries, `(name, bytes)`, in order.
pub fn write(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let too_big = || Error::failed(format!("trace: {name} is too large for a zip entry"));
        let size = u32::try_from(data.len()).map_err(|_| too_big())?;
        let offset = u32::try_from(out.len()).map_err(|_| too_big())?;
        let crc = crc32(data);
        let name_len = name.len() as u16;
        // Local file header.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes()); // version needed
        out.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
        out.extend_from_slice(&0u16.to_le_bytes()); // stored
        out.extend_from_slice(&0u16.to_le_bytes()); // time
        out.extend_from_slice(&0x0021u16.to_le_bytes()); // date: 1980-01-01
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Its central directory record.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by
        central.extend_from_slice(&20u16.to_le_bytes()); // needed
        central.extend_from_slice(&0x0800u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0x0021u16.to_le_bytes());
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&name_len.to_le_bytes());
        central.extend_from_slice(&[0u8; 12]); // extra, comment, disk, attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let count = u16::try_from(entries.len())
        .map_err(|_| Error::failed("trace: more than 65535 entries for one zip"))?;
    let central_at = out.len() as u32;
    let central_len = central.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0u8; 4]); // disk numbers
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&central_len.to_le_bytes());
    out.extend_from_slice(&central_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    Ok(out)
}

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(data.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

/// The entries of a zip of stored entries, as [`write()`] makes them.
pub fn read(data: &[u8]) -> Result<Vec<(String, Vec<u8>)>> {
    let bad = |why: &str| {
        Error::invalid_request(format!("this is not a uidrive trace: {why}"))
            .with_suggestion("give the trace.zip that tracing.stop or `uidrive close` wrote")
    };
    let end = (0..data.len().saturating_sub(21))
        .rev()
        .find(|&at| u32_at(data, at) == Some(0x0605_4b50))
        .ok_or_else(|| bad("no zip directory at its end"))?;
    let count = u16_at(data, end + 10).ok_or_else(|| bad("a cut directory"))? as usize;
    let mut at = u32_at(data, end + 16).ok_or_else(|| bad("a cut directory"))? as usize;
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let field = |off: usize| u32_at(data, at + off).ok_or_else(|| bad("a cut directory"));
        if field(0)? != 0x0201_4b50 {
            return Err(bad("a damaged directory"));
        }
        let method = u16_at(data, at + 10).ok_or_else(|| bad("a cut directory"))?;
        let size = field(20)? as usize;
        let name_len = u16_at(data, at + 28).ok_or_else(|| bad("a cut directory"))? as usize;
        let extra_len = u16_at(data, at + 30).ok_or_else(|| bad("a cut directory"))? as usize;
        let comment_len = u16_at(data, at + 32).ok_or_else(|| bad("a cut directory"))? as usize;
        let local = field(42)? as usize;
        let name = data
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(|| bad("a cut name"))?;
        let name = String::from_utf8_lossy(name).into_owned();
        if method != 0 {
            return Err(bad(&format!(
                "{name} is compressed, and traces store entries as they are"
            )));
        }
        let local_name = u16_at(data, local + 26).ok_or_else(|| bad("a cut entry"))? as usize;
        let local_extra = u16_at(data, local + 28).ok_or_else(|| bad("a cut entry"))? as usize;
        let start = local + 30 + local_name + local_extra;
        let bytes = data
            .get(start..start + size)
            .ok_or_else(|| bad(&format!("{name} is cut short")))?;
        if u32_at(data, at + 16) != Some(crc32(bytes)) {
            return Err(bad(&format!("{name} does not match its checksum")));
        }
        entries.push((name, bytes.to_vec()));
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc_of_the_check_string() {
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn what_is_written_reads_back() {
        let entries = vec![
            (
                "trace.jsonl".to_string(),
                b"{\"type\":\"trace\"}\n".to_vec(),
            ),
            ("resources/1.png".to_string(), vec![0, 1, 2, 255]),
            ("empty".to_string(), Vec::new()),
        ];
        let zip = super::write(&entries).unwrap();
        assert_eq!(super::read(&zip).unwrap(), entries);
        let mut damaged = zip.clone();
        damaged[45] ^= 0xff; // inside the first entry's data
        assert!(super::read(&damaged).is_err());
        assert!(super::read(b"not a zip at all, not at all").is_err());
    }
}
