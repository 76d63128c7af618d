// Placeholder until the C ABI issue lands: cbindgen will generate include/uidrive.h here.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
