//! Visual targets: text a window shows (OCR) and pictures matched on its
//! capture, for apps that show assistive technology nothing (Tk, xterm,
//! canvases). Core decides what matches and where; reading the pixels is a
//! [`Vision`]'s (the facade installs Tesseract's, from `uidrive-visual`), so
//! core keeps no OCR or image-search code of its own.
//!
//! A visual target resolves to boxes in the window's capture: a read of one
//! is a tree of the window and one element per match, with bounds and no
//! identity in the app's tree (see [`visual_tree`]).

use crate::driver::Driver;
use crate::error::{Error, Result};
use crate::locator::TextMatch;
use crate::protocol::{
    Bounds, Capture, CaptureParams, ElementId, Node, Role, State, Tree, WindowId,
};
use std::collections::VecDeque;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// One word OCR read, with its box in the capture.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrWord {
    /// The word as read.
    pub text: String,
    /// Where it is, in the capture's pixels (the window's content coordinates).
    pub bounds: Bounds,
    /// The engine's confidence, 0 to 100.
    pub confidence: f64,
}

/// One line of text OCR read: its words, left to right.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OcrLine {
    /// The words of the line.
    pub words: Vec<OcrWord>,
}

impl OcrLine {
    /// The line's words joined by one space.
    pub fn text(&self) -> String {
        join(&self.words)
    }

    /// The box holding every word of the line.
    pub fn bounds(&self) -> Bounds {
        union(&self.words)
    }
}

/// Where a template was found on a capture, and how well it matched (0 to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageMatch {
    /// The template's box on the capture.
    pub bounds: Bounds,
    /// The match's score: 1 for the same pixels.
    pub score: f64,
}

/// What reads pixels: OCR and template matching on a PNG capture.
pub trait Vision: Send + Sync {
    /// The text lines a capture shows, top to bottom.
    fn read_text(&self, png: &[u8]) -> Result<Vec<OcrLine>>;
    /// Where `template` (a PNG) shows on `png` with a score of at least
    /// `threshold`, best first, overlapping places counted once.
    fn find_image(&self, png: &[u8], template: &[u8], threshold: f64) -> Result<Vec<ImageMatch>>;
}

static VISION: OnceLock<Arc<dyn Vision>> = OnceLock::new();

/// Installs the engine visual targets use (the first install stays).
pub fn install(vision: Arc<dyn Vision>) {
    let _ = VISION.set(vision);
}

fn vision() -> Result<Arc<dyn Vision>> {
    VISION.get().cloned().ok_or_else(|| {
        Error::unsupported("no OCR or image-matching engine is installed in this build")
            .with_suggestion("use uidrive through its facade (CLI, Python, Node, C), which installs Tesseract's; or call uidrive_core::visual::install")
    })
}

/// The default score a template must reach.
pub const DEFAULT_THRESHOLD: f64 = 0.9;

/// What a visual target looks for.
#[derive(Debug, Clone)]
pub enum VisualQuery {
    /// Text read by OCR: exact, a part (case-insensitive) or a regex, over
    /// runs of words on one line.
    Ocr(TextMatch),
    /// A picture (a PNG file) matched on the capture.
    Image {
        /// The template's file.
        path: PathBuf,
        /// The least score a place must reach (0 to 1).
        threshold: f64,
    },
}

impl VisualQuery {
    /// A template query, its threshold checked.
    pub fn image(path: impl Into<PathBuf>, threshold: Option<f64>) -> Result<VisualQuery> {
        let threshold = threshold.unwrap_or(DEFAULT_THRESHOLD);
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(Error::invalid_request(format!(
                "an image target's threshold is {threshold}; it is a score above 0 and at most 1 (1: the same pixels)"
            )));
        }
        Ok(VisualQuery::Image {
            path: path.into(),
            threshold,
        })
    }
}

impl fmt::Display for VisualQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VisualQuery::Ocr(text) => write!(f, "get_by_ocr({text})"),
            VisualQuery::Image { path, threshold } => {
                write!(
                    f,
                    "get_by_image({:?}, threshold={threshold})",
                    path.display()
                )
            }
        }
    }
}

/// Where a visual read's ids start: far above any toolkit's, so a box is
/// never taken for an element of the app's tree.
const VISUAL_IDS: u64 = 1 << 60;

/// The key an element of a visual read carries in its `extra`: which route found it.
pub const VISUAL_FIELD: &str = "visual";

/// Recent captures' OCR, by the hash of the capture's bytes: the same
/// pixels are read once (an encoder gives the same bytes for the same pixels).
static OCR_CACHE: Mutex<VecDeque<(u64, Arc<Vec<OcrLine>>)>> = Mutex::new(VecDeque::new());
const CACHED: usize = 8;

fn hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

/// The text lines `png` shows, read once per distinct capture.
pub fn read_text(png: &[u8]) -> Result<Arc<Vec<OcrLine>>> {
    let key = hash(png);
    let cached = |key| {
        let cache = OCR_CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    };
    if let Some(lines) = cached(key) {
        return Ok(lines);
    }
    let lines = Arc::new(vision()?.read_text(png)?);
    let mut cache = OCR_CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.push_front((key, lines.clone()));
    cache.truncate(CACHED);
    Ok(lines)
}

/// The text lines `window` shows (the focused one, else the first, for
/// `None`), read by OCR on its capture: `snapshot --ocr`.
pub fn read_window_text(
    driver: &dyn Driver,
    window: Option<WindowId>,
) -> Result<(WindowId, Arc<Vec<OcrLine>>)> {
    let window = window_of(driver, window)?;
    let capture = driver.capture(&CaptureParams {
        window: Some(window),
    })?;
    Ok((window, read_text(&capture.png)?))
}

/// The runs of words on one line that `wanted` matches, as (text, box):
/// the shortest runs only, so `ocr~="Press"` gives the word, not its line.
pub fn find_text(lines: &[OcrLine], wanted: &TextMatch) -> Vec<(String, Bounds)> {
    let mut found = Vec::new();
    for line in lines {
        let words = &line.words;
        let matches = |from: usize, to: usize| wanted.matches(&join(&words[from..=to]));
        for from in 0..words.len() {
            for to in from..words.len() {
                if !matches(from, to) {
                    continue;
                }
                // Shortest: neither end can be dropped and still match.
                let shorter = (from < to) && (matches(from + 1, to) || matches(from, to - 1));
                if !shorter {
                    found.push((join(&words[from..=to]), union(&words[from..=to])));
                }
                break;
            }
        }
    }
    found
}

fn join(words: &[OcrWord]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn union(words: &[OcrWord]) -> Bounds {
    let left = words.iter().map(|w| w.bounds.x).fold(f64::MAX, f64::min);
    let top = words.iter().map(|w| w.bounds.y).fold(f64::MAX, f64::min);
    let right = words
        .iter()
        .map(|w| w.bounds.x + w.bounds.width)
        .fold(f64::MIN, f64::max);
    let bottom = words
        .iter()
        .map(|w| w.bounds.y + w.bounds.height)
        .fold(f64::MIN, f64::max);
    if words.is_empty() {
        return Bounds::new(0.0, 0.0, 0.0, 0.0);
    }
    Bounds::new(left, top, right - left, bottom - top)
}

/// The window `window` names (the focused one, else the first, for `None`).
pub fn window_of(driver: &dyn Driver, window: Option<WindowId>) -> Result<WindowId> {
    if let Some(id) = window {
        return Ok(id);
    }
    let list = driver.windows()?;
    list.windows
        .iter()
        .find(|w| w.focused)
        .or(list.windows.first())
        .map(|w| w.id)
        .ok_or_else(|| {
            Error::no_window("the app shows no window to look at").with_suggestion(
                "wait for its window (`wait --window-titled`), or check that the app still runs",
            )
        })
}

/// A read of `window` for a visual target: the window's element and one
/// text element (OCR) or image element (a template) per place the query
/// matches, in reading order, each with its box. Ids are the places' order
/// (from [`VISUAL_IDS`]), so the same picture reads the same.
pub fn visual_tree(
    driver: &dyn Driver,
    window: Option<WindowId>,
    query: &VisualQuery,
) -> Result<Tree> {
    let window = window_of(driver, window)?;
    let capture = driver.capture(&CaptureParams {
        window: Some(window),
    })?;
    let (role, places): (Role, Vec<(String, Bounds)>) = match query {
        VisualQuery::Ocr(text) => (Role::Text, find_text(&read_text(&capture.png)?, text)),
        VisualQuery::Image { path, threshold } => {
            let template = std::fs::read(path).map_err(|e| {
                Error::invalid_request(format!(
                    "the image target's file {} cannot be read: {e}",
                    path.display()
                ))
                .with_suggestion("give a PNG file's path, e.g. a capture cropped to the element (`screenshot TARGET FILE`)")
            })?;
            let found = vision()?.find_image(&capture.png, &template, *threshold)?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (
                Role::Image,
                found
                    .into_iter()
                    .map(|m| (name.clone(), m.bounds))
                    .collect(),
            )
        }
    };
    let mut nodes = vec![Node {
        id: ElementId(VISUAL_IDS),
        role: Role::Group,
        bounds: Some(Bounds::new(
            0.0,
            0.0,
            f64::from(capture.width),
            f64::from(capture.height),
        )),
        ..Node::default()
    }];
    let kind = match query {
        VisualQuery::Ocr(_) => "ocr",
        VisualQuery::Image { .. } => "image",
    };
    for (i, (label, bounds)) in places.into_iter().enumerate() {
        let mut node = Node {
            id: ElementId(VISUAL_IDS + i as u64 + 1),
            parent: Some(ElementId(VISUAL_IDS)),
            role: role.clone(),
            label: Some(label),
            bounds: Some(bounds),
            states: vec![State::ReadOnly],
            ..Node::default()
        };
        node.extra.insert(VISUAL_FIELD.to_string(), kind.into());
        nodes.push(node);
    }
    Ok(Tree {
        window,
        focus: None,
        nodes,
        announcements: None,
        extra: Default::default(),
    })
}

/// The part of `capture` inside `bounds` (window coordinates), as a PNG of its own.
pub fn crop_capture(capture: &Capture, bounds: Bounds) -> Result<Capture> {
    let outside = || {
        Error::invalid_request(format!(
            "the box ({}, {}) {}x{} is not inside the window's capture ({}x{})",
            bounds.x, bounds.y, bounds.width, bounds.height, capture.width, capture.height
        ))
    };
    let pixels = crate::locator::picture::crop(&capture.png, bounds).ok_or_else(outside)?;
    let clamp = |v: f64, most: u32| (v.max(0.0) as u32).min(most);
    let width = clamp(bounds.x + bounds.width, capture.width) - clamp(bounds.x, capture.width);
    let height = clamp(bounds.y + bounds.height, capture.height) - clamp(bounds.y, capture.height);
    let channels = pixels.len() / (width as usize * height as usize).max(1);
    let colour = match channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    };
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(colour);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| Error::failed(format!("could not write the PNG: {e}")))?;
        writer
            .write_image_data(&pixels)
            .map_err(|e| Error::failed(format!("could not write the PNG: {e}")))?;
    }
    Ok(Capture {
        png: out,
        width,
        height,
        clipped: false,
        extra: Default::default(),
    })
}

/// Whether `selector` (the string form) is well written, without reading
/// anything: for tools that check sample selectors, visual ones included.
pub fn check_selector(selector: &str) -> Result<()> {
    crate::locator::parse_selector(selector).map(drop)
}

/// Whether `tree` is a visual read (boxes on a capture, not the app's tree).
pub fn is_visual_tree(tree: &Tree) -> bool {
    tree.nodes
        .first()
        .is_some_and(|root| root.id == ElementId(VISUAL_IDS))
}

/// Whether `node` came from a visual read.
pub fn is_visual(node: &Node) -> bool {
    node.extra.contains_key(VISUAL_FIELD)
}

/// How often [`wait_changed`] captures.
const EVERY: Duration = Duration::from_millis(100);

/// Waits until the pixels of `window` (of `region` in it, when given)
/// differ from the first capture, and then until two captures in a row are
/// alike: the visual idle. Fails with `timeout` naming which part did not come.
pub fn wait_changed(
    driver: &dyn Driver,
    window: Option<WindowId>,
    region: Option<Bounds>,
    timeout: Duration,
) -> Result<Bounds> {
    let deadline = Instant::now() + timeout;
    let window = window_of(driver, window)?;
    let look = || -> Result<(Vec<u8>, Bounds)> {
        let capture = driver.capture(&CaptureParams {
            window: Some(window),
        })?;
        let whole = Bounds::new(
            0.0,
            0.0,
            f64::from(capture.width),
            f64::from(capture.height),
        );
        let area = region.unwrap_or(whole);
        let pixels = crate::locator::picture::crop(&capture.png, area).ok_or_else(|| {
            Error::invalid_request(format!(
                "the region ({}, {}) {}x{} is not inside the window's capture ({}x{})",
                area.x, area.y, area.width, area.height, capture.width, capture.height
            ))
        })?;
        Ok((pixels, area))
    };
    let (first, area) = look()?;
    let mut last = first.clone();
    let mut changed = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let what = if changed {
                "changed but did not settle (two captures alike)"
            } else {
                "did not change"
            };
            return Err(Error::timeout(format!(
                "wait_changed: the pixels of window {window}{} {what} within {} ms",
                region
                    .map(|r| format!(" in ({}, {}) {}x{}", r.x, r.y, r.width, r.height))
                    .unwrap_or_default(),
                timeout.as_millis()
            ))
            .with_suggestion("act first (the change must come after the wait starts), give a longer timeout, or a region that leaves out what always moves (a clock, a caret)"));
        }
        std::thread::sleep(EVERY.min(left));
        let (now, _) = look()?;
        if changed && now == last {
            return Ok(area);
        }
        if now != first {
            changed = true;
        }
        last = now;
    }
}
