//! One change as the list shows it, and the filter that picks changes.

use std::collections::BTreeMap;

use crate::engine::event::{CapturedEvent, ChangeEvent, FieldRef, Image};
use crate::engine::metrics::RedoDetail;

/// A change in the list, with the text the list shows computed once.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Position in arrival order; identifies the entry while it is in the ring.
    pub seq: u64,
    pub event: CapturedEvent,
    pub key: String,
    /// The changed columns, worked out when first shown: at tens of
    /// thousands of changes a second most entries leave the ring unseen.
    changed: std::cell::OnceCell<String>,
    /// `SQL_REDO` and `USERNAME` of the change, once the engine sent them.
    pub redo: Option<RedoDetail>,
}

impl Entry {
    pub(super) fn new(
        seq: u64,
        event: CapturedEvent,
        keys: &BTreeMap<String, Vec<String>>,
    ) -> Self {
        let key = match &event {
            CapturedEvent::Change(c) => {
                let table = format!("{}.{}", c.source.schema, c.source.table);
                key_text(c, keys.get(&table))
            }
            CapturedEvent::Ddl(_) => String::new(),
        };
        Entry {
            seq,
            event,
            key,
            changed: std::cell::OnceCell::new(),
            redo: None,
        }
    }

    /// The changed columns of a change (`STATUS,UPDATED_AT`), or a DDL's
    /// statement on one line.
    pub fn changed(&self) -> &str {
        self.changed.get_or_init(|| match &self.event {
            CapturedEvent::Change(c) => changed_text(c),
            CapturedEvent::Ddl(d) => one_line(&d.ddl),
        })
    }

    /// `c`, `u`, `d`, `r` or `ddl`.
    pub fn op_label(&self) -> &'static str {
        match &self.event {
            CapturedEvent::Change(c) => c.op.code(),
            CapturedEvent::Ddl(_) => "ddl",
        }
    }
}

pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn field_text(f: FieldRef<'_>) -> String {
    match f {
        FieldRef::Null => "NULL".into(),
        FieldRef::Text(t) | FieldRef::Binary(t) => t.to_string(),
        FieldRef::Unavailable | FieldRef::UnavailableBinary => "?".into(),
    }
}

pub(super) fn key_text(c: &ChangeEvent, key_columns: Option<&Vec<String>>) -> String {
    let Some(image) = c.after.as_ref().or(c.before.as_ref()) else {
        return String::new();
    };
    let pick = |col: &str| {
        // A key missing from the after image (a partial update) is in the before image.
        image
            .get(col)
            .or_else(|| c.before.as_ref().and_then(|b| b.get(col)))
            .map(field_text)
    };
    match key_columns.filter(|k| !k.is_empty()) {
        Some(cols) => cols
            .iter()
            .map(|col| pick(col).unwrap_or_else(|| "?".into()))
            .collect::<Vec<_>>()
            .join(","),
        None => image
            .iter()
            .next()
            .map(|(_, v)| field_text(v))
            .unwrap_or_default(),
    }
}

/// Columns whose value differs between the images (updates), or the
/// non-null columns written (inserts) or removed (deletes).
pub fn changed_columns(c: &ChangeEvent) -> Vec<String> {
    match (&c.before, &c.after) {
        (Some(before), Some(after)) => after
            .iter()
            .filter(|(col, v)| before.get(col) != Some(*v))
            .map(|(col, _)| col.to_string())
            .collect(),
        (None, Some(img)) | (Some(img), None) => img
            .iter()
            .filter(|(_, v)| *v != FieldRef::Null)
            .map(|(col, _)| col.to_string())
            .collect(),
        (None, None) => Vec::new(),
    }
}

pub(super) fn changed_text(c: &ChangeEvent) -> String {
    changed_columns(c).join(",")
}

/// The list filter: every term must match.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    pub text: String,
    ops: Vec<&'static str>,
    terms: Vec<String>,
}

impl Filter {
    /// `op:u`, `insert`/`update`/`delete`/`ddl` select operations; any other
    /// word matches the table, XID, column names or values, ignoring case.
    pub fn parse(text: &str) -> Self {
        let mut ops = Vec::new();
        let mut terms = Vec::new();
        for word in text.split_whitespace() {
            let lower = word.to_lowercase();
            let op = match lower.strip_prefix("op:") {
                Some("c" | "i" | "insert" | "create") => Some("c"),
                Some("u" | "update") => Some("u"),
                Some("d" | "delete") => Some("d"),
                Some("r" | "read") => Some("r"),
                Some("ddl") => Some("ddl"),
                Some(_) => None,
                None => match lower.as_str() {
                    "insert" => Some("c"),
                    "update" => Some("u"),
                    "delete" => Some("d"),
                    "ddl" => Some("ddl"),
                    _ => None,
                },
            };
            match op {
                Some(op) => ops.push(op),
                None => terms.push(lower),
            }
        }
        Filter {
            text: text.trim().to_string(),
            ops,
            terms,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.terms.is_empty()
    }

    pub fn matches(&self, e: &Entry) -> bool {
        if !self.ops.is_empty() && !self.ops.contains(&e.op_label()) {
            return false;
        }
        self.terms.iter().all(|t| entry_contains(e, t))
    }
}

pub(super) fn contains_ci(hay: &str, needle_lower: &str) -> bool {
    // The filter runs over the whole ring on every frame: no allocation on
    // the common all-ASCII path.
    if hay.is_ascii() && needle_lower.is_ascii() {
        let n = needle_lower.as_bytes();
        return n.is_empty()
            || hay
                .as_bytes()
                .windows(n.len())
                .any(|w| w.eq_ignore_ascii_case(n));
    }
    hay.to_lowercase().contains(needle_lower)
}

pub(super) fn image_contains(img: &Option<Image>, t: &str) -> bool {
    img.iter()
        .flatten()
        .any(|(col, v)| contains_ci(col, t) || v.as_str().is_some_and(|s| contains_ci(s, t)))
}

pub(super) fn entry_contains(e: &Entry, t: &str) -> bool {
    let src = e.event.source();
    if contains_ci(&src.table, t)
        || contains_ci(&src.schema, t)
        || (t.contains('.') && contains_ci(&format!("{}.{}", src.schema, src.table), t))
        || contains_ci(&src.xid, t)
        || contains_ci(&e.key, t)
    {
        return true;
    }
    match &e.event {
        CapturedEvent::Change(c) => image_contains(&c.before, t) || image_contains(&c.after, t),
        CapturedEvent::Ddl(d) => contains_ci(&d.ddl, t),
    }
}
