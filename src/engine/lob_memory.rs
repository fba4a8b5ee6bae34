//! The last LOB values seen per row, for the updates that do not carry
//! them. Oracle logs a LOB apart from its row, so an update that leaves a
//! LOB alone carries it as the unavailable marker; a consumer applying the
//! after image would overwrite the stored LOB with it. With `--lob
//! capture` every write of a LOB is mined, so the value an insert, a
//! snapshot row or an earlier update gave is still the row's value at a
//! later update that carries the marker: it is given instead. What this
//! run has not seen (before a restart, past the memory's bound) stays the
//! marker.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::event::{CapturedEvent, ChangeEvent, Field, Image, Op};
use super::port::TableName;

/// A row: its table and key values.
type RowKey = (TableName, Vec<String>);

/// Known LOB values of rows, bounded in bytes (the oldest row known goes
/// first).
#[derive(Debug)]
pub struct LobMemory {
    lob_columns: BTreeMap<TableName, Vec<String>>,
    key_columns: BTreeMap<TableName, Vec<String>>,
    known: HashMap<RowKey, Vec<(String, Field)>>,
    order: VecDeque<RowKey>,
    bytes: usize,
    max_bytes: usize,
}

impl LobMemory {
    /// Remembers LOBs of the tables in `lob_columns` that have a key in
    /// `key_columns`, up to `max_bytes` of values.
    pub fn new(
        lob_columns: BTreeMap<TableName, Vec<String>>,
        key_columns: BTreeMap<TableName, Vec<String>>,
        max_bytes: usize,
    ) -> Self {
        Self {
            lob_columns,
            key_columns,
            known: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            max_bytes,
        }
    }

    /// Learns the LOB values `event` gives and fills those it marks
    /// unavailable with the values known. Events come in commit order.
    pub fn apply(&mut self, event: &mut CapturedEvent) {
        let CapturedEvent::Change(c) = event else {
            return;
        };
        let table = TableName {
            owner: c.source.schema.clone(),
            table: c.source.table.clone(),
        };
        if c.op == Op::Truncate {
            self.forget_table(&table);
            return;
        }
        let (Some(lobs), Some(keys)) = (self.lob_columns.get(&table), self.key_columns.get(&table))
        else {
            return;
        };
        let before = c.before.as_ref().and_then(|i| key_of(i, keys));
        let after = c.after.as_ref().and_then(|i| key_of(i, keys));
        let lobs = lobs.clone();
        let old = before.and_then(|k| self.take(&(table.clone(), k)));
        fill(c, &lobs, old.as_deref());
        if let (Some(key), Some(image)) = (after, c.after.as_ref()) {
            let values = known_values(image, &lobs);
            if !values.is_empty() {
                self.remember((table, key), values);
            }
        }
    }

    fn take(&mut self, row: &RowKey) -> Option<Vec<(String, Field)>> {
        let values = self.known.remove(row)?;
        self.bytes = self.bytes.saturating_sub(size(row, &values));
        Some(values)
    }

    fn remember(&mut self, row: RowKey, values: Vec<(String, Field)>) {
        let n = size(&row, &values);
        if n > self.max_bytes {
            return;
        }
        self.bytes += n;
        self.order.push_back(row.clone());
        self.known.insert(row, values);
        while self.bytes > self.max_bytes {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.take(&oldest);
        }
        // Rows taken since leave stale entries in `order`; drop them in
        // bulk when they outnumber the rows known.
        if self.order.len() > 2 * self.known.len() + 64 {
            let known = &self.known;
            self.order.retain(|r| known.contains_key(r));
        }
    }

    fn forget_table(&mut self, table: &TableName) {
        let rows: Vec<RowKey> = self
            .known
            .keys()
            .filter(|r| &r.0 == table)
            .cloned()
            .collect();
        for row in rows {
            self.take(&row);
        }
    }
}

/// The key values of an image, if it holds every key column.
fn key_of(image: &Image, keys: &[String]) -> Option<Vec<String>> {
    keys.iter()
        .map(|k| image.get(k).and_then(|f| f.as_str()).map(str::to_string))
        .collect()
}

/// The LOB values an image gives (not the marker).
fn known_values(image: &Image, lobs: &[String]) -> Vec<(String, Field)> {
    lobs.iter()
        .filter_map(|c| {
            let f = image.get(c)?;
            (!f.is_unavailable()).then(|| (c.clone(), f.to_field()))
        })
        .collect()
}

/// Puts the known value of each LOB the event marks unavailable in its
/// before image, and in its after image where the change did not write it.
fn fill(c: &mut ChangeEvent, lobs: &[String], known: Option<&[(String, Field)]>) {
    let Some(known) = known else {
        return;
    };
    for image in [c.before.as_mut(), c.after.as_mut()].into_iter().flatten() {
        for column in lobs {
            let marked = image.get(column).is_some_and(|f| f.is_unavailable());
            if let Some((_, v)) = known.iter().find(|(k, _)| k == column).filter(|_| marked) {
                image.set(column, v);
            }
        }
    }
}

fn size(row: &RowKey, values: &[(String, Field)]) -> usize {
    let key: usize = row.1.iter().map(String::len).sum();
    let vals: usize = values
        .iter()
        .map(|(c, f)| c.len() + f.as_str().map_or(0, str::len) + 16)
        .sum();
    key + vals + 64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::{SnapshotMark, SourcePosition};

    fn docs() -> TableName {
        TableName {
            owner: "APP".into(),
            table: "DOCS".into(),
        }
    }

    fn image(id: &str, body: Field) -> Image {
        Image::from(vec![
            ("ID".to_string(), Field::text(id)),
            ("BODY".to_string(), body),
        ])
    }

    fn event(op: Op, before: Option<Image>, after: Option<Image>) -> CapturedEvent {
        CapturedEvent::Change(ChangeEvent {
            op,
            before,
            after,
            source: SourcePosition {
                schema: "APP".into(),
                table: "DOCS".into(),
                ..SourcePosition::default()
            },
            snapshot: SnapshotMark::Stream,
            partial: false,
            commit_ts_ms: 0,
            index: 0,
            table_order: 0,
        })
    }

    fn memory(max_bytes: usize) -> LobMemory {
        LobMemory::new(
            BTreeMap::from([(docs(), vec!["BODY".to_string()])]),
            BTreeMap::from([(docs(), vec!["ID".to_string()])]),
            max_bytes,
        )
    }

    fn body_after(e: &CapturedEvent) -> Option<Field> {
        match e {
            CapturedEvent::Change(c) => c.after.as_ref()?.get_field("BODY"),
            CapturedEvent::Ddl(_) => None,
        }
    }

    fn untouched_update(id: &str) -> CapturedEvent {
        event(
            Op::Update,
            Some(image(id, Field::Unavailable)),
            Some(image(id, Field::Unavailable)),
        )
    }

    #[test]
    fn an_update_leaving_a_lob_alone_gets_the_value_the_insert_gave() {
        let mut m = memory(1 << 20);
        m.apply(&mut event(
            Op::Create,
            None,
            Some(image("1", Field::text("hello"))),
        ));
        let mut u = untouched_update("1");
        m.apply(&mut u);
        assert_eq!(body_after(&u), Some(Field::text("hello")));
        let CapturedEvent::Change(c) = &u else {
            unreachable!()
        };
        assert_eq!(
            c.before.as_ref().and_then(|b| b.get_field("BODY")),
            Some(Field::text("hello"))
        );
        // A LOB written by a later update is what the next one gets.
        m.apply(&mut event(
            Op::Update,
            Some(image("1", Field::Unavailable)),
            Some(image("1", Field::text("bye"))),
        ));
        let mut again = untouched_update("1");
        m.apply(&mut again);
        assert_eq!(body_after(&again), Some(Field::text("bye")));
    }

    #[test]
    fn rows_not_seen_deleted_truncated_or_past_the_bound_keep_the_marker() {
        let mut m = memory(1 << 20);
        let mut unseen = untouched_update("9");
        m.apply(&mut unseen);
        assert_eq!(body_after(&unseen), Some(Field::Unavailable));
        m.apply(&mut event(
            Op::Create,
            None,
            Some(image("1", Field::text("x"))),
        ));
        m.apply(&mut event(
            Op::Delete,
            Some(image("1", Field::Unavailable)),
            None,
        ));
        let mut gone = untouched_update("1");
        m.apply(&mut gone);
        assert_eq!(body_after(&gone), Some(Field::Unavailable), "deleted");
        m.apply(&mut event(
            Op::Create,
            None,
            Some(image("2", Field::text("y"))),
        ));
        m.apply(&mut event(Op::Truncate, None, None));
        let mut truncated = untouched_update("2");
        m.apply(&mut truncated);
        assert_eq!(
            body_after(&truncated),
            Some(Field::Unavailable),
            "truncated"
        );
        // A bound of about one row: the first row known is forgotten.
        let mut small = memory(120);
        small.apply(&mut event(
            Op::Create,
            None,
            Some(image("1", Field::text("a"))),
        ));
        small.apply(&mut event(
            Op::Create,
            None,
            Some(image("2", Field::text("b"))),
        ));
        let mut first = untouched_update("1");
        small.apply(&mut first);
        assert_eq!(body_after(&first), Some(Field::Unavailable));
        let mut second = untouched_update("2");
        small.apply(&mut second);
        assert_eq!(body_after(&second), Some(Field::text("b")));
    }

    #[test]
    fn a_key_changing_update_carries_the_lob_to_the_new_key() {
        let mut m = memory(1 << 20);
        m.apply(&mut event(
            Op::Create,
            None,
            Some(image("1", Field::text("doc"))),
        ));
        let mut moved = event(
            Op::Update,
            Some(image("1", Field::Unavailable)),
            Some(image("5", Field::Unavailable)),
        );
        m.apply(&mut moved);
        assert_eq!(body_after(&moved), Some(Field::text("doc")));
        let mut at_new = untouched_update("5");
        m.apply(&mut at_new);
        assert_eq!(body_after(&at_new), Some(Field::text("doc")));
        let mut at_old = untouched_update("1");
        m.apply(&mut at_old);
        assert_eq!(body_after(&at_old), Some(Field::Unavailable));
    }
}
