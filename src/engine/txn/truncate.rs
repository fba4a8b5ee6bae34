//! TRUNCATE TABLE as a row event: LogMiner gives it only as DDL, so a
//! consumer that applies row events would keep every row the table lost.
//! After the DDL, the table's stream gets one `op: "t"` event with no
//! image, as Debezium emits it.

use crate::engine::event::{ChangeEvent, DdlEvent, Op, SnapshotMark};

/// The truncate event a DDL event means, if it is `TRUNCATE TABLE`.
/// `table_order` is left for the caller, which counts per table.
pub(super) fn truncate_event(ddl: &DdlEvent) -> Option<ChangeEvent> {
    let named = truncated_table(&ddl.ddl)?;
    let mut source = ddl.source.clone();
    // The row's SEG_OWNER/TABLE_NAME name the table; the statement is
    // read only where LogMiner left them empty.
    if source.table.is_empty() {
        let (owner, table) = named?;
        source.schema = owner;
        source.table = table;
    }
    Some(ChangeEvent {
        op: Op::Truncate,
        before: None,
        after: None,
        source,
        snapshot: SnapshotMark::Stream,
        partial: false,
        commit_ts_ms: ddl.commit_ts_ms,
        index: 0,
        table_order: 0,
    })
}

/// For a `TRUNCATE TABLE` statement, the (owner, table) it names when it
/// names both; `None` for any other statement.
fn truncated_table(sql: &str) -> Option<Option<(String, String)>> {
    let mut words = sql.split_ascii_whitespace();
    let verb = words.next()?;
    let object = words.next()?;
    if !verb.eq_ignore_ascii_case("truncate") || !object.eq_ignore_ascii_case("table") {
        return None;
    }
    let name = words.next().unwrap_or_default().trim_end_matches(';');
    let mut parts = name.splitn(2, '.').map(identifier);
    Some(match (parts.next(), parts.next()) {
        (Some(owner), Some(table)) if !owner.is_empty() && !table.is_empty() => {
            Some((owner, table))
        }
        _ => None,
    })
}

/// An identifier as the dictionary stores it: quoted as written,
/// unquoted in upper case.
fn identifier(part: &str) -> String {
    match part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
        Some(quoted) => quoted.to_string(),
        None => part.to_ascii_uppercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::SourcePosition;

    fn ddl(sql: &str, schema: &str, table: &str) -> DdlEvent {
        DdlEvent {
            source: SourcePosition {
                schema: schema.into(),
                table: table.into(),
                ..SourcePosition::default()
            },
            ddl: sql.into(),
            commit_ts_ms: 7,
        }
    }

    #[test]
    fn truncate_table_becomes_a_t_event_of_the_table_the_row_names() {
        let e = truncate_event(&ddl(
            "truncate table app.orders drop storage",
            "APP",
            "ORDERS",
        ))
        .expect("a truncate");
        assert_eq!(e.op.code(), "t");
        assert!(e.before.is_none() && e.after.is_none());
        assert_eq!(
            (e.source.schema.as_str(), e.source.table.as_str()),
            ("APP", "ORDERS")
        );
        assert_eq!(e.commit_ts_ms, 7);
    }

    #[test]
    fn a_row_without_names_is_named_from_the_statement() {
        let e =
            truncate_event(&ddl("TRUNCATE  TABLE \"App\".orders;", "", "")).expect("a truncate");
        assert_eq!(
            (e.source.schema.as_str(), e.source.table.as_str()),
            ("App", "ORDERS")
        );
        assert!(truncate_event(&ddl("truncate table orders", "", "")).is_none());
    }

    #[test]
    fn other_ddl_and_partition_truncation_are_no_truncate_event() {
        for sql in [
            "ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P1\";",
            "truncate cluster app.c",
            "DROP TABLE \"APP\".\"ORDERS\" PURGE;",
            "",
        ] {
            assert!(
                truncate_event(&ddl(sql, "APP", "ORDERS")).is_none(),
                "{sql}"
            );
        }
    }
}
