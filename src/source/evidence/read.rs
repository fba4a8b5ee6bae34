//! Cell readers: `JSON_OBJECT` writes numbers as numbers, but a value may
//! come as a string, and a missing one as null.

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::source::TableName;

use super::file::*;

pub(super) fn text(r: &Row, col: &str) -> Option<String> {
    match r.get(col)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(if *b { "YES".into() } else { "NO".into() }),
        other => Some(other.to_string()),
    }
}

pub(super) fn text_or(r: &Row, col: &str) -> String {
    text(r, col).unwrap_or_default()
}

pub(super) fn num(r: &Row, col: &str) -> Option<u64> {
    match r.get(col)? {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)),
        Value::String(s) => s.trim().parse::<f64>().ok().map(|f| f.max(0.0) as u64),
        _ => None,
    }
}

pub(super) fn float(r: &Row, col: &str) -> Option<f64> {
    match r.get(col)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub(super) fn int(r: &Row, col: &str) -> Option<i64> {
    match r.get(col)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub(super) fn yes(r: &Row, col: &str) -> bool {
    matches!(
        text(r, col).as_deref().map(str::trim),
        Some("YES" | "Y" | "TRUE" | "true" | "ENABLED" | "ALWAYS" | "1")
    )
}

pub(super) fn time(r: &Row, col: &str) -> Option<NaiveDateTime> {
    parse_time(&text(r, col)?)
}

pub(super) fn parse_time(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim().trim_end_matches('Z');
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, f) {
            return Some(t);
        }
    }
    None
}

pub(super) fn table_key(r: &Row, owner: &str, table: &str) -> TableName {
    TableName {
        owner: text_or(r, owner),
        table: text_or(r, table),
    }
}
