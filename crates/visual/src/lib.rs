//! uidrive's eyes, behind core's [`Vision`] trait: OCR through Debian's
//! Tesseract (the `tesseract` command, its TSV output) and template matching
//! (normalized cross-correlation, coarse to fine) on PNG captures decoded by
//! the `png` crate the workspace already builds.
//!
//! Tesseract runs in this process through its C API, opened at run time
//! (`engine`): no -dev package, no bindgen and no C++ in uidrive's build, and
//! the English model is loaded once per process (loading it is most of what
//! a read of a sparse window costs). Where the library cannot be opened, the
//! `tesseract` command reads the capture instead. Its language data is
//! Debian's `tesseract-ocr-eng`: nothing is downloaded at run time.

mod engine;
mod ocr;
mod template;

use std::sync::Arc;
use uidrive_core::visual::{ImageMatch, OcrLine, Vision};
use uidrive_core::Result;

pub use ocr::{parse_tsv, read_by_command};
pub use template::{find, Gray};

/// Tesseract for OCR, normalized cross-correlation for templates.
#[derive(Debug, Default, Clone)]
pub struct Eyes;

impl Vision for Eyes {
    fn read_text(&self, png: &[u8]) -> Result<Vec<OcrLine>> {
        ocr::read(png)
    }

    fn find_image(&self, png: &[u8], template: &[u8], threshold: f64) -> Result<Vec<ImageMatch>> {
        let image = Gray::decode(png, "the capture")?;
        let template = Gray::decode(template, "the template")?;
        Ok(find(&image, &template, threshold))
    }
}

/// Installs [`Eyes`] as core's engine for visual targets (once per process).
pub fn install() {
    uidrive_core::visual::install(Arc::new(Eyes));
}
