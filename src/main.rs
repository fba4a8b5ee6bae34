//! The `cdcctl` binary: parses the command line and maps outcomes to exit codes.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
