fn main() {
    eprintln!("uidrive {}", env!("CARGO_PKG_VERSION"));
}
