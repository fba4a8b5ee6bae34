//! Compact keys for ROW_ID, so partial rollbacks can find their target among
//! a million buffered (possibly spilled) changes with 16 bytes per change.
//!
//! An Oracle extended ROWID is 18 characters of Oracle's base-64 alphabet
//! (108 bits): it packs losslessly into a `u128`. Anything else (DM8 or
//! YashanDB row ids, restricted ROWIDs) is hashed, flagged by the top bit;
//! the buffer double-checks hashed keys against the text when the row is
//! still in memory.

use std::hash::{DefaultHasher, Hash, Hasher};

/// No ROW_ID: never matched by a partial rollback.
pub(crate) const NONE: u128 = 0;
/// A change removed by a partial rollback.
pub(crate) const DEAD: u128 = u128::MAX;
/// A row carrying a piece (LOB, XML, 32K) of the change before it: undoing
/// that change undoes its pieces too. Hashed and packed keys have a high
/// bit set, so no ROW_ID key is 1.
pub(crate) const PIECE: u128 = 1;

const HASHED: u128 = 1 << 127;
const PACKED: u128 = 1 << 126;

fn b64(c: u8) -> Option<u128> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u128::from(v))
}

/// The key of a ROW_ID value.
pub(crate) fn key(row_id: Option<&str>) -> u128 {
    let Some(id) = row_id.map(str::trim_ascii).filter(|s| !s.is_empty()) else {
        return NONE;
    };
    if id.len() == 18 {
        let packed = id
            .bytes()
            .try_fold(0u128, |acc, c| b64(c).map(|v| (acc << 6) | v));
        if let Some(p) = packed {
            return PACKED | p;
        }
    }
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    HASHED | u128::from(h.finish())
}

/// Whether a key might collide and needs the text compared.
pub(crate) fn is_hashed(k: u128) -> bool {
    k != DEAD && k & HASHED != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_rowids_pack_without_collisions() {
        let a = key(Some("AAAR3sAAEAAAACXAAA"));
        let b = key(Some("AAAR3sAAEAAAACXAAB"));
        assert_ne!(a, b);
        assert!(!is_hashed(a));
        assert_ne!(a, NONE);
        assert_ne!(a, DEAD);
        assert_eq!(a, key(Some(" AAAR3sAAEAAAACXAAA ")));
    }

    #[test]
    fn other_row_ids_hash_and_missing_ones_never_match() {
        assert_eq!(key(None), NONE);
        assert_eq!(key(Some("")), NONE);
        let k = key(Some("12345"));
        assert!(is_hashed(k));
        assert_eq!(k, key(Some("12345")));
    }
}
