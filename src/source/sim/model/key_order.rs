//! `ORDER BY key` as Oracle sorts a snapshot read whose key is not the
//! simulator's own row number (a RAW, text or date key): RAW by its bytes,
//! NUMBER by value, text by its bytes (NLS_SORT = BINARY), DATE and
//! TIMESTAMP in time, and `WHERE key > :k` against the key a read binds
//! back, whether or not a row with that key still exists.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::engine::row::Scn;
use crate::source::sim::value::{ColType, Value};

use super::Model;

/// A key column's text (as a read returns it, or as the capture binds it
/// back) against another of the same column.
fn column_cmp(ty: &ColType, a: &str, b: &str) -> Ordering {
    match ty {
        ColType::Raw(_) => match (hex_bytes(a), hex_bytes(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => a.cmp(b),
        },
        ColType::Number { .. } | ColType::Int | ColType::BigInt => {
            match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
                (Ok(x), Ok(y)) => x.total_cmp(&y),
                _ => a.cmp(b),
            }
        }
        // `T` or a space between date and time, a `Z` or not: one instant.
        ColType::Date | ColType::Timestamp(_) => time_text(a).cmp(&time_text(b)),
        _ => a.as_bytes().cmp(b.as_bytes()),
    }
}

fn time_text(s: &str) -> String {
    s.trim_end_matches('Z').replacen('T', " ", 1)
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Composite keys compare column by column.
fn key_cmp(types: &[&ColType], a: &[String], b: &[String]) -> Ordering {
    types
        .iter()
        .zip(a.iter().zip(b))
        .map(|(ty, (x, y))| column_cmp(ty, x, y))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

impl Model {
    /// `SELECT ... AS OF SCN as_of WHERE key > :after ORDER BY key FETCH
    /// FIRST limit ROWS ONLY` for a table whose key is not the row number:
    /// the rows with their key texts.
    #[allow(clippy::type_complexity)]
    pub fn snapshot_rows_by_key(
        &self,
        t: usize,
        as_of: Scn,
        after: Option<&[String]>,
        limit: usize,
    ) -> Vec<(Vec<String>, Arc<Vec<Value>>)> {
        let tb = &self.tables[t];
        let types: Vec<&ColType> = tb.pk.iter().map(|&i| &tb.columns[i].ty).collect();
        let mut rows: Vec<(Vec<String>, Arc<Vec<Value>>)> = self
            .snapshot_rows(t, as_of, None, usize::MAX)
            .into_iter()
            .map(|(k, v)| (self.key_texts(t, k, &v), v))
            .filter(|(key, _)| after.is_none_or(|a| key_cmp(&types, key, a).is_gt()))
            .collect();
        rows.sort_by(|a, b| key_cmp(&types, &a.0, &b.0));
        rows.truncate(limit);
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_keys_sort_by_bytes_in_either_case_of_hex() {
        let raw = ColType::Raw(16);
        assert_eq!(column_cmp(&raw, "0A", "09"), Ordering::Greater);
        assert_eq!(column_cmp(&raw, "ff", "FE"), Ordering::Greater);
        assert_eq!(column_cmp(&raw, "ab", "AB"), Ordering::Equal);
        // A prefix sorts first, as Oracle compares RAW byte by byte.
        assert_eq!(column_cmp(&raw, "AB", "AB00"), Ordering::Less);
    }

    #[test]
    fn numbers_sort_by_value_and_text_by_bytes() {
        let n = ColType::Int;
        assert_eq!(column_cmp(&n, "10", "9"), Ordering::Greater);
        let v = ColType::Varchar2(10);
        assert_eq!(column_cmp(&v, "Z", "a"), Ordering::Less);
        assert_eq!(
            column_cmp(&ColType::Date, "2025-01-02T00:00:00", "2025-01-01 23:59:59"),
            Ordering::Greater
        );
    }
}
