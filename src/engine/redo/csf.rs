//! Continuation-row assembly: LogMiner splits a long SQL_REDO over
//! consecutive rows with `CSF = 1` (pieces of at most 4000 bytes), the last
//! piece having `CSF = 0`. The break may fall anywhere, inside a literal or
//! an identifier, so pieces are joined before parsing.
//!
//! Oracle's pieces share XID, RS_ID and SSN. DM8 numbers its pieces
//! instead: they share SCN, XID (and RS_ID) and carry SSN 0, 1, 2, ...; a
//! piece continues such a chain when its SSN is the latest piece's plus
//! one. Both rules apply to every source, so no dialect is needed: the
//! second could take an Oracle row of another change for a piece only if
//! that row came inside an open chain starting at SSN 0 (already a broken
//! chain) with the chain's SCN, XID and RS_ID and the next SSN.
//!
//! Oracle cuts pieces by bytes in the database character set, so a cut can
//! fall inside a multi-byte character. cdcctl's rows carry SQL_REDO as
//! `String`, which cannot hold half a character: a source that fetches
//! pieces must hand over whole characters (the `oracle` driver converts each
//! piece as a whole value), and joining two valid strings here is then exact.

use thiserror::Error;

use crate::engine::row::{LogMinerRow, Scn};

/// A chain of continuation rows that does not form one statement.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CsfError {
    #[error(
        "the SQL_REDO of the change at SCN {scn} (RS_ID {rs_id}, SSN {ssn}) stops after {pieces} \
         piece(s) still marked CSF=1: the statement is truncated; read the rows again from SCN {scn}"
    )]
    Truncated {
        scn: Scn,
        rs_id: String,
        ssn: u64,
        pieces: usize,
    },
    #[error(
        "a row of another change (SCN {found_scn}, RS_ID {found_rs_id}, SSN {found_ssn}) came \
         between the continuation pieces of the change at SCN {scn} (RS_ID {rs_id}, SSN {ssn}): \
         pieces must be consecutive, so the contents query must not reorder rows"
    )]
    Interleaved {
        scn: Scn,
        rs_id: String,
        ssn: u64,
        found_scn: Scn,
        found_rs_id: String,
        found_ssn: u64,
        /// The row that broke the chain, handed back so the caller can push
        /// it again (the broken chain itself is dropped).
        row: Box<LogMinerRow>,
    },
}

/// Joins continuation pieces, fed in view order, into logical rows that
/// carry the first piece's SCN, RS_ID, SSN, XID and other columns.
#[derive(Debug, Default)]
pub struct CsfAssembler {
    pending: Option<LogMinerRow>,
    pieces: usize,
    /// The SSN of the chain's latest piece (DM8 numbers each piece).
    last_ssn: u64,
}

fn rs_id_text(r: &LogMinerRow) -> String {
    r.rs_id.clone().unwrap_or_default()
}

impl CsfAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// True while a chain waits for its `CSF = 0` piece.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Feeds one row; returns a complete logical row when one is finished.
    pub fn push(&mut self, row: LogMinerRow) -> Result<Option<LogMinerRow>, CsfError> {
        let Some(mut head) = self.pending.take() else {
            if row.csf {
                self.last_ssn = row.ssn;
                self.pending = Some(row);
                self.pieces = 1;
                return Ok(None);
            }
            return Ok(Some(row));
        };
        if !same_change(&head, self.last_ssn, &row) {
            self.pieces = 0;
            return Err(CsfError::Interleaved {
                scn: head.scn,
                rs_id: rs_id_text(&head),
                ssn: head.ssn,
                found_scn: row.scn,
                found_rs_id: rs_id_text(&row),
                found_ssn: row.ssn,
                row: Box::new(row),
            });
        }
        if let Some(piece) = row.sql_redo {
            head.sql_redo
                .get_or_insert_with(String::new)
                .push_str(&piece);
        }
        self.pieces += 1;
        self.last_ssn = row.ssn;
        if row.csf {
            self.pending = Some(head);
            Ok(None)
        } else {
            head.csf = false;
            self.pieces = 0;
            Ok(Some(head))
        }
    }

    /// Ends the stream: an unfinished chain is a truncated statement.
    pub fn finish(&mut self) -> Result<(), CsfError> {
        match self.pending.take() {
            None => Ok(()),
            Some(head) => {
                let pieces = std::mem::take(&mut self.pieces);
                Err(CsfError::Truncated {
                    scn: head.scn,
                    rs_id: rs_id_text(&head),
                    ssn: head.ssn,
                    pieces,
                })
            }
        }
    }
}

/// A row stream with its continuation pieces joined: see [`assemble`].
#[derive(Debug)]
pub struct Assembled<I> {
    rows: I,
    csf: CsfAssembler,
    carry: Option<LogMinerRow>,
    done: bool,
}

/// What [`Assembled`] yields besides rows.
#[derive(Debug, Error)]
pub enum AssembleError<E> {
    /// The underlying stream failed; rows may still follow.
    #[error(transparent)]
    Source(E),
    /// A broken chain; the stream goes on after it.
    #[error(transparent)]
    Csf(CsfError),
}

/// Joins the CSF pieces of a stream of rows in view order. A broken chain
/// is reported once and the stream continues with the row that broke it;
/// a chain still open at the end is reported as truncated.
pub fn assemble<I, E>(rows: I) -> Assembled<I::IntoIter>
where
    I: IntoIterator<Item = Result<LogMinerRow, E>>,
{
    Assembled {
        rows: rows.into_iter(),
        csf: CsfAssembler::new(),
        carry: None,
        done: false,
    }
}

impl<I, E> Iterator for Assembled<I>
where
    I: Iterator<Item = Result<LogMinerRow, E>>,
{
    type Item = Result<LogMinerRow, AssembleError<E>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            let row = match self.carry.take() {
                Some(r) => r,
                None => match self.rows.next() {
                    Some(Ok(r)) => r,
                    Some(Err(e)) => return Some(Err(AssembleError::Source(e))),
                    None => {
                        self.done = true;
                        return self.csf.finish().err().map(|e| Err(AssembleError::Csf(e)));
                    }
                },
            };
            match self.csf.push(row) {
                Ok(Some(r)) => return Some(Ok(r)),
                Ok(None) => {}
                Err(e) => {
                    if let CsfError::Interleaved { row, .. } = &e {
                        self.carry = Some((**row).clone());
                    }
                    return Some(Err(AssembleError::Csf(e)));
                }
            }
        }
    }
}

/// Pieces of one change share XID and RS_ID, and either the SSN (Oracle)
/// or the SCN with the SSN counting up from 0 (DM8).
fn same_change(head: &LogMinerRow, last_ssn: u64, next: &LogMinerRow) -> bool {
    head.xid == next.xid
        && head.rs_id == next.rs_id
        && (head.ssn == next.ssn
            || (head.ssn == 0 && head.scn == next.scn && last_ssn.checked_add(1) == Some(next.ssn)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::redo::parse;

    fn piece(sql: &str, csf: bool) -> LogMinerRow {
        LogMinerRow {
            scn: 100,
            xid: "0A0014005D3C0000".into(),
            rs_id: Some(" 0x000003.00000010.0010 ".into()),
            ssn: 1,
            csf,
            sql_redo: Some(sql.into()),
            ..LogMinerRow::default()
        }
    }

    fn join(pieces: &[(&str, bool)]) -> Vec<LogMinerRow> {
        let mut a = CsfAssembler::new();
        let mut out = Vec::new();
        for (sql, csf) in pieces {
            if let Some(r) = a.push(piece(sql, *csf)).unwrap() {
                out.push(r);
            }
        }
        a.finish().unwrap();
        out
    }

    #[test]
    fn break_inside_a_literal_joins_into_one_parsable_statement() {
        let rows = join(&[
            (r#"insert into "APP"."T"("NOTE") values ('it''s a lo"#, true),
            ("ng note');", false),
        ]);
        assert_eq!(rows.len(), 1);
        assert!(!rows[0].csf);
        let sql = rows[0].sql_redo.as_deref().unwrap();
        let stmt = parse(sql).unwrap();
        assert_eq!(
            stmt.after_image().unwrap().to_vec()[0].1.as_str(),
            Some("it's a long note")
        );
    }

    #[test]
    fn break_inside_an_identifier_joins_the_name() {
        let rows = join(&[
            (r#"delete from "APP"."ORD"#, true),
            (r#"ERS" where "ID" = '1';"#, false),
        ]);
        let stmt = parse(rows[0].sql_redo.as_deref().unwrap()).unwrap();
        assert_eq!(stmt.table(), "ORDERS");
    }

    #[test]
    fn break_between_multibyte_characters_keeps_the_text_exact() {
        let rows = join(&[
            (r#"insert into "APP"."T"("NOTE") values ('中"#, true),
            ("文');", false),
        ]);
        let stmt = parse(rows[0].sql_redo.as_deref().unwrap()).unwrap();
        assert_eq!(
            stmt.after_image().unwrap().to_vec()[0].1.as_str(),
            Some("中文")
        );
    }

    #[test]
    fn three_pieces_keep_the_first_pieces_position() {
        let mut a = CsfAssembler::new();
        let mut first = piece(r#"update "APP"."T" set "#, true);
        first.scn = 100;
        first.seg_owner = Some("APP".into());
        assert_eq!(a.push(first).unwrap(), None);
        assert_eq!(a.push(piece(r#""S" = 'X' where "#, true)).unwrap(), None);
        assert!(a.is_pending());
        let mut last = piece(r#""ID" = '7';"#, false);
        last.seg_owner = None;
        let row = a.push(last).unwrap().unwrap();
        assert_eq!(row.scn, 100);
        assert_eq!(row.seg_owner.as_deref(), Some("APP"));
        assert_eq!(
            row.sql_redo.as_deref(),
            Some(r#"update "APP"."T" set "S" = 'X' where "ID" = '7';"#)
        );
        assert!(!a.is_pending());
    }

    #[test]
    fn stream_ending_inside_a_chain_is_a_truncated_statement() {
        let mut a = CsfAssembler::new();
        assert_eq!(a.push(piece("insert into ", true)).unwrap(), None);
        assert_eq!(a.push(piece(r#""APP"."T""#, true)).unwrap(), None);
        match a.finish() {
            Err(CsfError::Truncated { scn, pieces, .. }) => {
                assert_eq!(scn, 100);
                assert_eq!(pieces, 2);
            }
            other => panic!("expected a truncated statement, got {other:?}"),
        }
        assert_eq!(a.finish(), Ok(()));
    }

    #[test]
    fn row_of_another_change_inside_a_chain_is_an_error_and_is_handed_back() {
        let mut a = CsfAssembler::new();
        assert_eq!(a.push(piece("insert into ", true)).unwrap(), None);
        let mut other = piece("commit;", false);
        other.ssn = 2;
        match a.push(other.clone()) {
            Err(CsfError::Interleaved {
                row,
                found_ssn,
                ssn,
                ..
            }) => {
                assert_eq!((ssn, found_ssn), (1, 2));
                assert_eq!(*row, other);
            }
            res => panic!("expected interleaving to be refused, got {res:?}"),
        }
        assert!(!a.is_pending());
        assert_eq!(a.push(other.clone()).unwrap(), Some(other));
    }

    #[test]
    fn assembled_stream_reports_broken_and_truncated_chains_and_goes_on() {
        let mut other = piece("commit;", false);
        other.ssn = 2;
        let rows: Vec<Result<LogMinerRow, std::io::Error>> = vec![
            Ok(piece(r#"delete from "A"."T" "#, true)),
            Ok(piece(r#"where "ID" = '1';"#, false)),
            Ok(piece("insert into ", true)),
            Ok(other.clone()),
            Err(std::io::Error::other("disk")),
            Ok(piece("insert into ", true)),
        ];
        let out: Vec<_> = assemble(rows).collect();
        assert_eq!(out.len(), 5);
        assert_eq!(
            out[0].as_ref().unwrap().sql_redo.as_deref(),
            Some(r#"delete from "A"."T" where "ID" = '1';"#)
        );
        assert!(matches!(
            out[1],
            Err(AssembleError::Csf(CsfError::Interleaved { .. }))
        ));
        assert_eq!(out[2].as_ref().unwrap(), &other);
        assert!(matches!(out[3], Err(AssembleError::Source(_))));
        assert!(matches!(
            out[4],
            Err(AssembleError::Csf(CsfError::Truncated { .. }))
        ));
    }

    #[test]
    fn rows_without_continuation_pass_through_unchanged() {
        let r = piece("commit;", false);
        let mut a = CsfAssembler::new();
        assert_eq!(a.push(r.clone()).unwrap(), Some(r));
    }
}
