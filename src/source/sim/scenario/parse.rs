//! Reading scenario text: TOML syntax and type errors reported with their
//! line, column and key, then the scenario validated.

use super::error::{line_col, ScenarioError};
use super::spec::Scenario;

/// The key on a line (`key = value`) or the table header (`[x]`).
fn key_on_line(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
    let line = text[start..end].trim();
    if let Some(h) = line.strip_prefix('[') {
        return h.trim_matches(|c| c == '[' || c == ']').trim().to_string();
    }
    // The error may point at a key itself (unknown field): `key = ...`.
    let here = &text[offset..end];
    let ident_len = here
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
        .count();
    if ident_len > 0 && here[ident_len..].trim_start().starts_with('=') {
        return here[..ident_len].to_string();
    }
    // Inline tables: take the key nearest before the offset.
    let upto = &text[start..offset];
    let segment = upto.rsplit([',', '{']).next().unwrap_or(upto);
    let cand = segment.split('=').next().unwrap_or("").trim();
    if !cand.is_empty() && !segment.trim_start().starts_with('"') && segment.contains('=') {
        return cand.to_string();
    }
    line.split('=').next().unwrap_or(line).trim().to_string()
}

impl Scenario {
    /// Parses scenario text; `origin` names it in errors (a path or `built-in demo`).
    pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let mut s: Scenario = toml::from_str(text).map_err(|e| {
            // A key or section missing from the top of the file is an
            // error of the whole text, with no line or key to point at:
            // toml gives it an empty span at the start, or none.
            let whole = e.span().is_none_or(|r| r.is_empty() && r.start == 0);
            if whole {
                return ScenarioError::Invalid {
                    origin: origin.to_string(),
                    message: format!(
                        "{} at the top level of the file (README's simulator section shows a scenario file)",
                        e.message().trim()
                    ),
                };
            }
            let offset = e.span().map_or(0, |r| r.start);
            let (line, column) = line_col(text, offset);
            ScenarioError::Syntax {
                origin: origin.to_string(),
                line,
                column,
                key: key_on_line(text, offset),
                message: e.message().trim().to_string(),
            }
        })?;
        s.validate(text, origin)?;
        Ok(s)
    }
}
