//! Extended ROWIDs (`OOOOOOFFFBBBBBBRRR`, base 64) and the position they
//! name. A table without a key is snapshotted in ROWID order, and a ROWID
//! says which segment (data object id) a read has reached.

/// The position an extended ROWID (`OOOOOOFFFBBBBBBRRR`, base 64) names:
/// data object, relative file, block, row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RowidPos {
    pub data_object_id: u64,
    pub relative_fno: u64,
    pub block: u64,
    pub row: u64,
}

fn base64_digit(c: u8) -> Option<u64> {
    Some(match c {
        b'A'..=b'Z' => u64::from(c - b'A'),
        b'a'..=b'z' => u64::from(c - b'a') + 26,
        b'0'..=b'9' => u64::from(c - b'0') + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    })
}

fn base64_number(text: &[u8]) -> Option<u64> {
    text.iter()
        .try_fold(0u64, |acc, &c| Some(acc * 64 + base64_digit(c)?))
}

/// Decodes an extended ROWID as `ROWIDTOCHAR` prints it. Restricted
/// (Oracle 7) and logical ROWIDs are not decoded.
pub fn decode_rowid(rowid: &str) -> Option<RowidPos> {
    let b = rowid.as_bytes();
    if b.len() != 18 {
        return None;
    }
    Some(RowidPos {
        data_object_id: base64_number(&b[0..6])?,
        relative_fno: base64_number(&b[6..9])?,
        block: base64_number(&b[9..15])?,
        row: base64_number(&b[15..18])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_rowids_decode_to_object_file_block_and_row() {
        // AAAR3s = 73196, AAE = 4, AAAACX = 151, AAA = 0
        let p = decode_rowid("AAAR3sAAEAAAACXAAA").expect("extended ROWID");
        assert_eq!(
            p,
            RowidPos {
                data_object_id: 73_196,
                relative_fno: 4,
                block: 151,
                row: 0
            }
        );
        assert_eq!(decode_rowid("AAAR3sAAEAAAACXAAB").map(|p| p.row), Some(1));
        assert!(decode_rowid("AAAR3sAAEAAAACX").is_none(), "too short");
        assert!(decode_rowid("AAAR3sAAEAAAACXAA-").is_none(), "not base 64");
    }
}
