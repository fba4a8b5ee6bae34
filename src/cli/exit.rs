//! Exit codes as the process returns them; the contract and which failure
//! maps to which code are the library's ([`cdcctl::exit`]).

use std::process::ExitCode;

pub use cdcctl::exit::*;

pub fn code(c: u8) -> ExitCode {
    ExitCode::from(c)
}

/// Writes a command's whole output to stdout. A reader that went away
/// (`| head`) is a normal end: exit 0, nothing on stderr.
pub fn write_stdout(bytes: &[u8]) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => code(OK),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code(OK),
        Err(e) => {
            eprintln!("cdcctl: cannot write to stdout: {e}");
            code(USAGE)
        }
    }
}
