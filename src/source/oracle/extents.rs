//! Key-less snapshots by extent: the extents of a table from `DBA_EXTENTS`
//! and where a resumed read continues among them, decided from the last
//! ROWID read. Each chunk then reads one extent's ROWID range, so no query
//! sorts the rest of the table.

use super::rows::Reader;
use super::sql::Extent;
use crate::source::SourceError;

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

/// Rows of [`super::sql::TABLE_EXTENTS`]. `None` when a segment lies in a
/// bigfile tablespace, whose ROWIDs carry no relative file number: such a
/// table is read without extent ranges.
pub fn extents_from_rows(rows: &[Vec<Option<String>>]) -> Result<Option<Vec<Extent>>, SourceError> {
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let r = Reader::new(row, "DBA_EXTENTS");
        if r.flag(4)? {
            return Ok(None);
        }
        out.push(Extent {
            data_object_id: r.u64(0, "DATA_OBJECT_ID")?,
            relative_fno: r.u64(1, "RELATIVE_FNO")?,
            first_block: r.u64(2, "BLOCK_ID")?,
            last_block: r.u64(3, "BLOCK_ID + BLOCKS - 1")?,
        });
    }
    Ok(Some(out))
}

/// Where a read resumes: the index of the first extent still to read, and
/// whether the last key lies inside it (then only ROWIDs above the key are
/// read there). Extents are in ROWID order, as the query returns them.
pub fn resume_at(
    extents: &[Extent],
    after_rowid: Option<&str>,
) -> Result<(usize, bool), SourceError> {
    let Some(text) = after_rowid else {
        return Ok((0, false));
    };
    let pos = decode_rowid(text).ok_or_else(|| {
        SourceError::Invalid(format!(
            "the snapshot resumes after `{text}`, which is not an extended ROWID; restart the snapshot of this table"
        ))
    })?;
    for (i, e) in extents.iter().enumerate() {
        let start = (e.data_object_id, e.relative_fno, e.first_block);
        let end = (e.data_object_id, e.relative_fno, e.last_block);
        let at = (pos.data_object_id, pos.relative_fno, pos.block);
        if at < start {
            return Ok((i, false));
        }
        if at <= end {
            return Ok((i, true));
        }
    }
    Ok((extents.len(), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(objd: u64, fno: u64, first: u64, last: u64) -> Extent {
        Extent {
            data_object_id: objd,
            relative_fno: fno,
            first_block: first,
            last_block: last,
        }
    }

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

    #[test]
    fn a_resumed_read_continues_in_the_extent_holding_the_last_rowid() {
        let extents = [
            extent(73_196, 4, 128, 135),
            extent(73_196, 4, 144, 159),
            extent(73_200, 4, 8, 15),
        ];
        assert_eq!(resume_at(&extents, None).unwrap(), (0, false));
        // Block 151 of file 4, object 73196: inside the second extent.
        assert_eq!(
            resume_at(&extents, Some("AAAR3sAAEAAAACXAAA")).unwrap(),
            (1, true)
        );
        // Block 140 lies between the first two extents.
        let between = "AAAR3sAAEAAAACMAAA";
        assert_eq!(decode_rowid(between).map(|p| p.block), Some(140));
        assert_eq!(resume_at(&extents, Some(between)).unwrap(), (1, false));
        // Past the last extent: nothing left.
        assert_eq!(
            resume_at(&extents, Some("AAAR3xAAEAAAAAQAAA")).unwrap(),
            (3, false)
        );
        assert!(resume_at(&extents, Some("not a rowid")).is_err());
    }

    #[test]
    fn bigfile_segments_are_read_without_extent_ranges() {
        let row = |bigfile: &str| {
            vec![
                Some("73196".to_string()),
                Some("4".to_string()),
                Some("128".to_string()),
                Some("135".to_string()),
                Some(bigfile.to_string()),
            ]
        };
        let small = extents_from_rows(&[row("NO")]).unwrap();
        assert_eq!(small, Some(vec![extent(73_196, 4, 128, 135)]));
        assert_eq!(extents_from_rows(&[row("NO"), row("YES")]).unwrap(), None);
    }
}
