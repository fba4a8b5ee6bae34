//! The names capture speaks in: the database family a source is, a
//! table's `OWNER.TABLE_NAME`, and `SCHEMA.TABLE` patterns with `LIKE`
//! wildcards, read as Oracle reads identifiers.

use serde::{Deserialize, Serialize};

/// Which database family a source speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    #[default]
    Oracle,
    /// Dameng DM8.
    Dm,
    Yashandb,
}

impl Dialect {
    /// `source.connector` of the events captured from it.
    pub fn connector(self) -> &'static str {
        match self {
            Dialect::Oracle => "oracle",
            Dialect::Dm => "dm",
            Dialect::Yashandb => "yashandb",
        }
    }
}

/// `OWNER.TABLE_NAME`, both as stored in the dictionary.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct TableName {
    pub owner: String,
    pub table: String,
}

impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.owner, self.table)
    }
}

/// A `SCHEMA.TABLE` pattern with `%` (any run) and `_` (one character) wildcards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablePattern {
    pub owner: String,
    pub table: String,
}

impl TablePattern {
    /// `%.%`: what an empty pattern list asks a catalog's tables for.
    pub fn every_table() -> Self {
        TablePattern {
            owner: "%".into(),
            table: "%".into(),
        }
    }

    /// Parses `SCHEMA.TABLE`; unquoted names are upper-cased as Oracle does,
    /// `"quoted"` ones keep their case.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (owner, table) = split_qualified(text)
            .ok_or_else(|| format!("`{text}` is not SCHEMA.TABLE (wildcards: % and _)"))?;
        Ok(TablePattern { owner, table })
    }

    pub fn matches(&self, name: &TableName) -> bool {
        like(&self.owner, &name.owner) && like(&self.table, &name.table)
    }
}

impl std::fmt::Display for TablePattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.owner, self.table)
    }
}

/// One part of a name as Oracle reads an identifier: unquoted in upper
/// case, double-quoted exactly as written; `None` when malformed.
pub(crate) fn normalize_ident(part: &str) -> Option<String> {
    let part = part.trim();
    if part.is_empty() {
        return None;
    }
    if let Some(inner) = part.strip_prefix('"') {
        let inner = inner.strip_suffix('"')?;
        if inner.is_empty() || inner.contains('"') {
            return None;
        }
        return Some(inner.to_string());
    }
    let ok = part
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '#' | '%'));
    ok.then(|| part.to_uppercase())
}

/// Splits `A.B` (either part optionally double-quoted) into normalised names.
pub fn split_qualified(text: &str) -> Option<(String, String)> {
    let text = text.trim();
    let mut in_quotes = false;
    let mut dot = None;
    for (i, c) in text.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            '.' if !in_quotes => {
                if dot.is_some() {
                    return None;
                }
                dot = Some(i);
            }
            _ => {}
        }
    }
    let dot = dot?;
    Some((
        normalize_ident(&text[..dot])?,
        normalize_ident(&text[dot + 1..])?,
    ))
}

/// SQL `LIKE` with `%` and `_`, case-sensitive as the dictionary is.
pub fn like(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let (mut star, mut mark) = (None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '_' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '%' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '%' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_matches_percent_and_underscore() {
        assert!(like("ORDER%", "ORDER_HIS"));
        assert!(like("%", ""));
        assert!(like("ORD_RS", "ORDERS"));
        assert!(!like("ORDERS", "ORDER_HIS"));
        assert!(like("%_HIS", "ORDER_HIS"));
        assert!(!like("ORDERS_", "ORDERS"));
    }

    #[test]
    fn unquoted_names_upper_case_and_quoted_keep_case() {
        let p = TablePattern::parse("app.orders").unwrap();
        assert_eq!((p.owner.as_str(), p.table.as_str()), ("APP", "ORDERS"));
        let p = TablePattern::parse("\"App\".\"my.table\"").unwrap();
        assert_eq!((p.owner.as_str(), p.table.as_str()), ("App", "my.table"));
    }

    #[test]
    fn table_pattern_rejects_injection_and_missing_schema() {
        assert!(TablePattern::parse("ORDERS").is_err());
        assert!(TablePattern::parse("APP.ORDERS; DROP TABLE X").is_err());
        assert!(TablePattern::parse("APP.'X'").is_err());
        assert!(TablePattern::parse("A.B.C").is_err());
    }
}
