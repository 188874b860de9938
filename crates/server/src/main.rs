//! The `commerce` binary.

/// mimalloc rather than the system's allocator: a request allocates and frees many small
/// buffers on whichever thread runs it (tokio's workers, one per SQLite connection), and
/// glibc's arenas spent a fifth of a list page's time in their own locks and consolidation.
/// It also serves C code's `malloc` (the `override` feature): SQLite's page caches and
/// the ephemeral tables of a page's aggregates.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    server::cli::main()
}
