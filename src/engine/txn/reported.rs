//! The findings given once per column (a character column kept as hex, an
//! unavailable LOB), remembered without copying the names of one already
//! given: otherwise every change of such a column would cost three copies.

use std::collections::HashMap;

use crate::engine::finding::Finding;

/// The keys given, by their hash (several keys may share one): the hash
/// is fast rather than resistant, names come from the dictionary.
type Seen = HashMap<u64, Vec<(u8, String, String, String)>, foldhash::fast::RandomState>;

/// (kind, schema, table, column) of the findings given once per column,
/// found without copying the names of a finding already given: a column
/// kept as hex would otherwise cost three copies per change.
#[derive(Default)]
pub(super) struct ReportedOnce {
    hasher: foldhash::fast::RandomState,
    seen: Seen,
}

impl ReportedOnce {
    pub(super) const CHARACTER_HEX: u8 = 0;
    pub(super) const LOB_UNAVAILABLE: u8 = 1;

    /// The once-per-column key of `f`, if it is such a finding.
    pub(super) fn key(f: &Finding) -> Option<(u8, &str, &str, &str)> {
        match f {
            Finding::CharacterHex {
                schema,
                table,
                column,
                ..
            } => Some((Self::CHARACTER_HEX, schema, table, column)),
            Finding::LobUnavailable {
                schema,
                table,
                column,
            } => Some((Self::LOB_UNAVAILABLE, schema, table, column)),
            _ => None,
        }
    }

    fn hash(&self, kind: u8, schema: &str, table: &str, column: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one((kind, schema, table, column))
    }

    pub(super) fn contains(&self, kind: u8, schema: &str, table: &str, column: &str) -> bool {
        self.seen
            .get(&self.hash(kind, schema, table, column))
            .is_some_and(|same| {
                same.iter()
                    .any(|(k, s, t, c)| *k == kind && s == schema && t == table && c == column)
            })
    }

    /// True the first time.
    pub(super) fn insert(&mut self, kind: u8, schema: &str, table: &str, column: &str) -> bool {
        if self.contains(kind, schema, table, column) {
            return false;
        }
        let hash = self.hash(kind, schema, table, column);
        self.seen
            .entry(hash)
            .or_default()
            .push((kind, schema.into(), table.into(), column.into()));
        true
    }
}
