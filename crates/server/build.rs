// Rebuild when the embedded front end changes.
fn main() {
    println!("cargo:rerun-if-changed=../../web");
}
