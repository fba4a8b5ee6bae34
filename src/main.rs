//! The `cdcctl` binary: parses the command line and maps outcomes to exit codes.

mod cli;

/// The capture path allocates and frees many small strings per change (a
/// row's columns, an event's position, its JSON line) from several threads;
/// mimalloc's thread-local free lists serve that pattern with about half of
/// glibc malloc's cost (`cargo bench --bench engine`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
