//! Tesseract in this process, through its C API (`libtesseract.so.5`, which
//! Debian's `tesseract-ocr` depends on), opened at run time with `dlopen`:
//! no -dev package and no bindgen at build time, and a machine without the
//! library still runs uidrive (OCR falls back to the `tesseract` command).
//!
//! Why in-process: loading the English model is most of what the command
//! costs on a window with little text (0.17 s of 0.27 s CPU on a 1280x1024
//! Tk window). Loaded once, later reads pay for recognition alone.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Mutex;

type Create = unsafe extern "C" fn() -> *mut c_void;
type Init3 = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int;
type SetVariable = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int;
type SetPageSegMode = unsafe extern "C" fn(*mut c_void, c_int);
type SetImage = unsafe extern "C" fn(*mut c_void, *const u8, c_int, c_int, c_int, c_int);
type GetTsvText = unsafe extern "C" fn(*mut c_void, c_int) -> *mut c_char;
type DeleteText = unsafe extern "C" fn(*mut c_char);
type OmpSetNumThreads = unsafe extern "C" fn(c_int);

/// Page segmentation 11: sparse text, as a window's labels are.
const SPARSE_TEXT: c_int = 11;

struct Engine {
    api: *mut c_void,
    set_image: SetImage,
    get_tsv: GetTsvText,
    delete_text: DeleteText,
    /// libgomp's, when Tesseract was built with OpenMP: one thread, as the
    /// command is run (OMP_THREAD_LIMIT=1), since its threads spin on cores
    /// uidrive shares with the app.
    omp_threads: Option<OmpSetNumThreads>,
}

// The engine is used under the mutex below only, one call at a time.
unsafe impl Send for Engine {}

/// `None` before the first read; then the engine, or why there is none.
static ENGINE: Mutex<Option<Result<Engine, String>>> = Mutex::new(None);

fn symbol<T>(library: *mut c_void, name: &CStr) -> Result<T, String> {
    // SAFETY: `library` is a handle dlopen gave; the name is NUL-terminated.
    let found = unsafe { libc::dlsym(library, name.as_ptr()) };
    if found.is_null() {
        return Err(format!("libtesseract has no {name:?}"));
    }
    // SAFETY: T is the function pointer type of the C API's declaration of `name`.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, T>(&found) })
}

fn open() -> Result<Engine, String> {
    // SAFETY: dlopen with a NUL-terminated name; the library stays loaded.
    let library = unsafe { libc::dlopen(c"libtesseract.so.5".as_ptr(), libc::RTLD_NOW) };
    if library.is_null() {
        return Err("libtesseract.so.5 is not installed".into());
    }
    let create: Create = symbol(library, c"TessBaseAPICreate")?;
    let init: Init3 = symbol(library, c"TessBaseAPIInit3")?;
    let set_variable: SetVariable = symbol(library, c"TessBaseAPISetVariable")?;
    let set_psm: SetPageSegMode = symbol(library, c"TessBaseAPISetPageSegMode")?;
    let omp_threads: Option<OmpSetNumThreads> = symbol(library, c"omp_set_num_threads").ok();
    // SAFETY: the C API's own sequence: create, quiet its messages, load
    // English from Debian's tessdata, choose the page segmentation.
    unsafe {
        if let Some(one_thread) = omp_threads {
            one_thread(1);
        }
        let api = create();
        if api.is_null() {
            return Err("TessBaseAPICreate failed".into());
        }
        // Its notes ("Estimating resolution as ...") are not the caller's output.
        set_variable(api, c"debug_file".as_ptr(), c"/dev/null".as_ptr());
        if init(api, std::ptr::null(), c"eng".as_ptr()) != 0 {
            return Err("Tesseract found no English data (tesseract-ocr-eng)".into());
        }
        set_psm(api, SPARSE_TEXT);
        Ok(Engine {
            api,
            set_image: symbol(library, c"TessBaseAPISetImage")?,
            get_tsv: symbol(library, c"TessBaseAPIGetTsvText")?,
            delete_text: symbol(library, c"TessDeleteText")?,
            omp_threads,
        })
    }
}

/// Tesseract's TSV for a grey picture (one byte a pixel, row by row), or
/// `None` when the library cannot be used (the caller runs the command).
pub(crate) fn tsv(grey: &[u8], width: usize, height: usize) -> Option<String> {
    if width == 0 || height == 0 || grey.len() < width * height {
        return None;
    }
    let mut engine = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    let engine = engine.get_or_insert_with(open).as_ref().ok()?;
    // SAFETY: the picture outlives the call; the text is Tesseract's to free.
    unsafe {
        // Per calling thread in OpenMP: set before each read.
        if let Some(one_thread) = engine.omp_threads {
            one_thread(1);
        }
        (engine.set_image)(
            engine.api,
            grey.as_ptr(),
            width as c_int,
            height as c_int,
            1,
            width as c_int,
        );
        let text = (engine.get_tsv)(engine.api, 0);
        if text.is_null() {
            return None;
        }
        let out = CStr::from_ptr(text).to_string_lossy().into_owned();
        (engine.delete_text)(text);
        Some(out)
    }
}
