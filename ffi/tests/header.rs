//! The committed header must be exactly what cbindgen makes, and must compile
//! cleanly as C99 and as C++17.

use std::path::{Path, PathBuf};
use std::process::Command;

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include/uidrive.h")
}

const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/uidrive.h"));

#[test]
fn committed_header_matches_the_generated_one() {
    let committed_text = std::fs::read_to_string(committed()).unwrap_or_default();
    if committed_text != GENERATED {
        let generated = concat!(env!("OUT_DIR"), "/uidrive.h");
        let diff = Command::new("diff")
            .args(["-u", &committed().display().to_string(), generated])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_else(|e| format!("(diff could not run: {e})"));
        panic!(
            "include/uidrive.h differs from what cbindgen generates; \
             run `UIDRIVE_BLESS=1 cargo build -p uidrive` to update it:\n{diff}"
        );
    }
}

#[test]
fn the_hand_written_timeout_macro_matches_the_rust_constant() {
    let define = format!(
        "#define UD_TIMEOUT_DEFAULT ((int64_t){})",
        crate::UD_TIMEOUT_DEFAULT
    );
    assert!(
        GENERATED.contains(&define),
        "cbindgen.toml must write `{define}`"
    );
    assert_eq!(GENERATED.matches("#define UD_TIMEOUT_DEFAULT").count(), 1);
}

fn compile(compiler: &str, args: &[&str], source: &str, name: &str) {
    let dir = std::env::temp_dir().join(format!("uidrive-header-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, source).unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let output = Command::new(compiler)
        .args(args)
        .args([
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
            "-I",
        ])
        .arg(&include)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("could not run {compiler} (install gcc and g++): {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "{compiler} {args:?} rejected the header:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Uses a little of everything, so that each declaration is checked.
const USE_HEADER: &str = r#"
#include "uidrive.h"
int use_header(void);
int use_header(void) {
    ud_app *app = NULL;
    char *json = NULL;
    uint8_t *png = NULL;
    size_t len = 0;
    uint32_t width = 0, height = 0;
    ud_status status = ud_connect("/tmp/x.sock", &app);
    if (status == UD_OK) {
        status = ud_windows(app, &json);
        status = ud_capture(app, UD_WINDOW_DEFAULT, &png, &len, &width, &height);
        status = ud_act_by_key(app, UD_WINDOW_DEFAULT, "add", UD_ACTION_PRESS, NULL);
        status = ud_idle(app, UD_WINDOW_DEFAULT, UD_TIMEOUT_DEFAULT);
    }
    ud_locator *add = NULL;
    if (ud_app_get_by_role(app, "button", "Add", UD_MATCH_EXACT, &add) == UD_OK) {
        status = ud_locator_click(add, NULL);
        status = ud_expect_state(add, UD_EXPECT_VISIBLE, false, UD_TIMEOUT_DEFAULT);
    }
    ud_locator_free(add);
    ud_string_free(json);
    ud_bytes_free(png);
    ud_app_free(app);
    return (int)status + (int)ud_abi_version() + UD_ABI_VERSION + UD_ERR_OTHER - (int)UD_TIMEOUT_DEFAULT;
}
"#;

#[test]
fn header_compiles_as_c99() {
    compile("cc", &["-std=c99", "-x", "c"], USE_HEADER, "use_header.c");
}

#[test]
fn header_compiles_as_cpp17() {
    compile(
        "c++",
        &["-std=c++17", "-x", "c++"],
        USE_HEADER,
        "use_header.cpp",
    );
}
