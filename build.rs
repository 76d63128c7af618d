//! Generates the C header from the `extern "C"` layer in `ffi/`.
//!
//! The header goes to `$OUT_DIR/uidrive.h`; a test in `ffi/` compares it with
//! the committed `include/uidrive.h` and fails with the diff. To update the
//! committed header after changing the ABI, run `UIDRIVE_BLESS=1 cargo build`
//! (or `tests/c_abi/bless.sh`).

use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));

    println!("cargo:rerun-if-changed=ffi");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=UIDRIVE_BLESS");

    let config = cbindgen::Config::from_file(manifest_dir.join("cbindgen.toml"))
        .unwrap_or_else(|e| panic!("cbindgen.toml: {e}"));
    let header = match cbindgen::Builder::new()
        .with_src(manifest_dir.join("ffi").join("lib.rs"))
        .with_config(config)
        .generate()
    {
        Ok(bindings) => bindings,
        Err(e) => panic!("cbindgen could not generate include/uidrive.h: {e}"),
    };

    let generated = out_dir.join("uidrive.h");
    header.write_to_file(&generated);

    if std::env::var_os("UIDRIVE_BLESS").is_some_and(|v| v != "0") {
        bless(&generated, &manifest_dir.join("include").join("uidrive.h"));
    }
}

/// Copies the freshly generated header over the committed one.
fn bless(generated: &Path, committed: &Path) {
    std::fs::create_dir_all(committed.parent().expect("include/ has a parent"))
        .expect("create include/");
    std::fs::copy(generated, committed)
        .unwrap_or_else(|e| panic!("copy the header to {}: {e}", committed.display()));
    println!("cargo:warning=UIDRIVE_BLESS: wrote {}", committed.display());
}
