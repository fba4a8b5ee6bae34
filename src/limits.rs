//! Bounds on what cdcctl reads whole: a file is read only up to a size
//! limit, and structured text (YAML, JSON, TOML) is checked for nesting
//! depth before a parser recurses into it, so a hostile or mistaken input
//! (`/dev/zero`, a megabyte of `[`) ends in a clear error, not an abort or
//! minutes of parsing.

use std::io::{self, Read};
use std::path::Path;

/// Scenario and connector config files.
pub const CONFIG_BYTES: u64 = 4 << 20;
/// Checkpoints.
pub const CHECKPOINT_BYTES: u64 = 16 << 20;
/// Evidence and facts files (catalog dumps of large databases).
pub const EVIDENCE_BYTES: u64 = 256 << 20;
/// Nesting depth of brackets and braces no real file comes near.
pub const MAX_NESTING: usize = 128;

/// Reads `path` as UTF-8 text of at most `max` bytes, then checks its
/// nesting depth.
pub fn read_text(path: &Path, max: u64) -> io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut text = String::new();
    file.take(max + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB, more than such a file can be",
                max >> 20
            ),
        ));
    }
    check_nesting(&text)?;
    Ok(text)
}

/// Fails when brackets or braces outside quoted strings nest deeper than
/// [`MAX_NESTING`].
pub fn check_nesting(text: &str) -> io::Result<()> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' && q == '"' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("nested deeper than {MAX_NESTING} levels of [ and {{"),
                    ));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            '\n' if quote.is_none() => {}
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_refused_and_brackets_in_strings_do_not_count() {
        assert!(check_nesting(&"[".repeat(100_000)).is_err());
        assert!(check_nesting(&format!("a = \"{}\"", "[".repeat(1000))).is_ok());
        assert!(check_nesting("{\"a\": [[1, 2], {\"b\": [3]}]}").is_ok());
    }

    #[test]
    fn oversized_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("big.toml");
        std::fs::write(&path, vec![b'#'; 2000]).expect("write");
        assert!(read_text(&path, 1000).is_err());
        assert_eq!(read_text(&path, 4000).map(|t| t.len()).ok(), Some(2000));
    }
}
