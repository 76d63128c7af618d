//! OCR through the `tesseract` command: the capture goes in on stdin, the
//! words come back as TSV (level 5 rows: a word, its box and confidence),
//! grouped into lines by Tesseract's block, paragraph and line numbers.

use std::io::Write;
use std::process::{Command, Stdio};
use uidrive_core::protocol::Bounds;
use uidrive_core::visual::{OcrLine, OcrWord};
use uidrive_core::{Error, Result};

/// Words read with less confidence than this are left out: Tesseract reads
/// icons and borders as stray letters with a low confidence.
const LEAST_CONFIDENCE: f64 = 20.0;

pub(crate) fn read(png: &[u8]) -> Result<Vec<OcrLine>> {
    // In this process when the library is there (the model loaded once),
    // else through the command; UIDRIVE_OCR=command chooses the command.
    let command = std::env::var_os("UIDRIVE_OCR").is_some_and(|v| v == "command");
    if command {
        return read_by_command(png);
    }
    if let Ok(grey) = crate::template::Gray::decode(png, "the capture") {
        let bytes: Vec<u8> = grey.pixels.iter().map(|p| p.round() as u8).collect();
        if let Some(tsv) = crate::engine::tsv(&bytes, grey.width, grey.height) {
            return Ok(parse_tsv(&tsv));
        }
    }
    read_by_command(png)
}

/// OCR through the `tesseract` command: a process for each read.
pub fn read_by_command(png: &[u8]) -> Result<Vec<OcrLine>> {
    // Page segmentation 11 (sparse text): a window's labels are scattered,
    // not a page of paragraphs. One thread: uidrive's other work shares the cores.
    let mut child = Command::new("tesseract")
        .args(["stdin", "stdout", "-l", "eng", "--psm", "11", "tsv"])
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::unsupported(format!("OCR needs the `tesseract` command, which did not start: {e}"))
                .with_suggestion("install Tesseract and its English data (Debian: apt-get install tesseract-ocr tesseract-ocr-eng)")
        })?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let png = png.to_vec();
    // Written from another thread so a full stdout pipe cannot stall both.
    let writer = std::thread::spawn(move || stdin.write_all(&png));
    let out = child
        .wait_with_output()
        .map_err(|e| Error::failed(format!("tesseract did not answer: {e}")))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(Error::failed(format!(
            "tesseract failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
        .with_suggestion(
            "check that tesseract-ocr-eng is installed (`tesseract --list-langs` lists eng)",
        ));
    }
    Ok(parse_tsv(&String::from_utf8_lossy(&out.stdout)))
}

/// Tesseract's TSV as lines of words, in its reading order.
pub fn parse_tsv(tsv: &str) -> Vec<OcrLine> {
    let mut lines: Vec<((u32, u32, u32), OcrLine)> = Vec::new();
    // The command's TSV starts with a header, the library's does not.
    for row in tsv.lines() {
        let cols: Vec<&str> = row.split('\t').collect();
        if cols.len() < 12 || cols[0] != "5" {
            continue;
        }
        let text = cols[11].trim();
        let number = |i: usize| cols[i].trim().parse::<f64>().unwrap_or(0.0);
        if text.is_empty() || number(10) < LEAST_CONFIDENCE {
            continue;
        }
        let key = (number(2) as u32, number(3) as u32, number(4) as u32);
        let word = OcrWord {
            text: text.to_string(),
            bounds: Bounds::new(number(6), number(7), number(8), number(9)),
            confidence: number(10),
        };
        match lines.last_mut() {
            Some((last, line)) if *last == key => line.words.push(word),
            _ => lines.push((key, OcrLine { words: vec![word] })),
        }
    }
    lines.into_iter().map(|(_, line)| line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_grouped_by_line_and_weak_ones_left_out() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
                   4\t1\t1\t1\t1\t0\t10\t10\t100\t12\t-1\t\n\
                   5\t1\t1\t1\t1\t1\t10\t10\t40\t12\t96.5\tPress\n\
                   5\t1\t1\t1\t1\t2\t55\t11\t20\t11\t91\tme\n\
                   5\t1\t1\t1\t1\t3\t80\t11\t5\t11\t3\t|\n\
                   5\t1\t2\t1\t1\t1\t10\t40\t60\t12\t88\tPressed\n";
        let lines = parse_tsv(tsv);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].text(), "Press me");
        assert_eq!(lines[0].bounds(), Bounds::new(10.0, 10.0, 65.0, 12.0));
        assert_eq!(lines[1].text(), "Pressed");
    }
}
