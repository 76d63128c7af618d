//! The Swing app of tests/apps, compiled once per test binary with javac.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The directory holding `SwingForm.class`.
pub fn compile_swing_form() -> PathBuf {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    CLASSES
        .get_or_init(|| {
            let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("swing-form");
            std::fs::create_dir_all(&out).unwrap();
            let source = format!(
                "{}/../../tests/apps/SwingForm.java",
                env!("CARGO_MANIFEST_DIR")
            );
            let built = std::process::Command::new("javac")
                .arg("-d")
                .arg(&out)
                .arg(&source)
                .output()
                .expect("javac runs (Debian: default-jdk-headless)");
            assert!(
                built.status.success(),
                "javac {source}: {}",
                String::from_utf8_lossy(&built.stderr)
            );
            out
        })
        .clone()
}
