//! The `commerce` binary.

fn main() -> std::process::ExitCode {
    server::cli::main()
}
