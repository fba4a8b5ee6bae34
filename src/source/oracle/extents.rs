//! Key-less snapshots by extent: the extents of a table from `DBA_EXTENTS`
//! and where a resumed read continues among them, decided from the last
//! ROWID read. Each chunk then reads one extent's ROWID range, so no query
//! sorts the rest of the table.

use super::rows::Reader;
use super::sql::Extent;
use crate::engine::rowid::decode_rowid;
use crate::source::SourceError;

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

/// Rows of [`super::sql::TABLE_SEGMENT_IDS`], in the query's order.
pub fn segment_ids_from_rows(rows: &[Vec<Option<String>>]) -> Result<Vec<u64>, SourceError> {
    rows.iter()
        .map(|row| Reader::new(row, "ALL_OBJECTS").u64(0, "DATA_OBJECT_ID"))
        .collect()
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
    fn segment_ids_are_read_from_all_objects_rows() {
        let row = |id: &str| vec![Some(id.to_string())];
        assert_eq!(
            segment_ids_from_rows(&[row("74000"), row("74012")]).unwrap(),
            [74_000, 74_012]
        );
        assert!(segment_ids_from_rows(&[vec![None]]).is_err());
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
