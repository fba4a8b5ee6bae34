//! Transactions open in the database (`V$TRANSACTION`, `GV$TRANSACTION` on
//! RAC): the one reading of them that a first start uses to mine such
//! transactions from their own start, and that views of open transactions
//! can show.

use super::port::{OpenTransaction, RedoSource, SessionTransaction, SourceError};
use super::row::Scn;

/// The database's open transactions, oldest first, each XID once (on RAC
/// every instance reports its own).
pub fn open_transactions<S: RedoSource + ?Sized>(
    source: &mut S,
) -> Result<Vec<OpenTransaction>, SourceError> {
    let mut open = source.open_transactions()?;
    open.sort_by(|a, b| a.start_scn.cmp(&b.start_scn).then(a.xid.cmp(&b.xid)));
    let mut seen = std::collections::HashSet::new();
    open.retain(|t| seen.insert(t.xid.to_ascii_uppercase()));
    Ok(open)
}

/// The database's open transactions with the sessions that hold them,
/// oldest first, each XID once: the same reading as [`open_transactions`],
/// for views that show who to ask to commit.
pub fn session_transactions<S: RedoSource + ?Sized>(
    source: &mut S,
) -> Result<Vec<SessionTransaction>, SourceError> {
    let mut open = source.session_transactions()?;
    open.sort_by(|a, b| {
        let (a, b) = (&a.transaction, &b.transaction);
        a.start_scn.cmp(&b.start_scn).then(a.xid.cmp(&b.xid))
    });
    let mut seen = std::collections::HashSet::new();
    open.retain(|t| seen.insert(t.transaction.xid.to_ascii_uppercase()));
    Ok(open)
}

/// The transactions of `open` already under way at `scn` (their START_SCN
/// at or below it), in the PDB captured when one is named: the ones whose
/// earlier changes a start after `scn` would miss.
pub fn in_flight_at(open: &[OpenTransaction], scn: Scn, pdb: Option<&str>) -> Vec<OpenTransaction> {
    open.iter()
        .filter(|t| t.start_scn > 0 && t.start_scn <= scn)
        .filter(|t| match (pdb, t.con_name.as_deref()) {
            (Some(p), Some(c)) => p.eq_ignore_ascii_case(c),
            _ => true,
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn txn(xid: &str, start: Scn, con: Option<&str>) -> OpenTransaction {
        OpenTransaction {
            xid: xid.into(),
            start_scn: start,
            start_time: None,
            used_urec: 1,
            username: Some("APP".into()),
            con_name: con.map(str::to_string),
        }
    }

    #[test]
    fn in_flight_are_the_ones_started_at_or_before_the_start_point_in_the_captured_pdb() {
        let open = [
            txn("01", 90, Some("PDB1")),
            txn("02", 100, Some("PDB1")),
            txn("03", 101, Some("PDB1")),
            txn("04", 50, Some("PDB2")),
            txn("05", 60, None),
        ];
        let xids = |v: Vec<OpenTransaction>| v.into_iter().map(|t| t.xid).collect::<Vec<_>>();
        assert_eq!(
            xids(in_flight_at(&open, 100, Some("pdb1"))),
            ["01", "02", "05"]
        );
        assert_eq!(
            xids(in_flight_at(&open, 100, None)),
            ["01", "02", "04", "05"]
        );
    }
}
