//! The `cargo-ascend-tune` binary: everything lives in the library; this only hands over the arguments
//! and turns the outcome into an exit code.
fn main() {
    std::process::exit(ascend_tune::cli::main(std::env::args_os().collect()));
}
