//! The messages an event becomes: Debezium's key struct as the key, the
//! envelope as the value, and headers that give every message its own id.
//! A delete may add a tombstone, and an update that changes the primary key
//! becomes what Debezium sends for it (a delete under the old key, its
//! tombstone, a create under the new key), so compacted topics and upsert
//! consumers do not keep the old row alive.

use std::collections::HashMap;
use std::sync::Arc;

use rdkafka::message::{Header, Headers, OwnedHeaders};

use super::{topic, KafkaConfig, SinkError};
use crate::engine::event::json::{push_field_json, push_json_string};
use crate::engine::event::{
    key_with_schema, schema_change_key_with_schema, CapturedEvent, ChangeEvent, ColumnKinds,
    EnvelopeForm, Op, ValueForms,
};
use crate::source::catalog::TableName;

/// The message key: Debezium's key struct JSON of the primary key, taken
/// from the after image (the before image for a delete). `None` for a
/// table without a known key, as Debezium sends then.
pub fn message_key(
    change: &ChangeEvent,
    key_columns: &[String],
    forms: ValueForms,
) -> Option<String> {
    let image = match change.op {
        Op::Delete => change.before.as_ref()?,
        _ => change.after.as_ref().or(change.before.as_ref())?,
    };
    key_of(change, image, key_columns, forms)
}

/// The key of `image`, a row of `change`'s table; under its Kafka Connect
/// schema with `--envelope connect-json`.
fn key_of(
    change: &ChangeEvent,
    image: &crate::engine::event::Image,
    key_columns: &[String],
    forms: ValueForms,
) -> Option<String> {
    if key_columns.is_empty() {
        return None;
    }
    // The struct's fields in the key's column order, written as the
    // envelope writes an image's members.
    let mut key = String::with_capacity(2 + 32 * key_columns.len());
    key.push('{');
    for (i, col) in key_columns.iter().enumerate() {
        let value = image.get(col)?;
        if i > 0 {
            key.push(',');
        }
        push_json_string(&mut key, col);
        key.push(':');
        push_field_json(&mut key, value, forms);
    }
    key.push('}');
    Some(match forms.envelope {
        EnvelopeForm::Plain => key,
        EnvelopeForm::ConnectJson => {
            key_with_schema(&change.source, image, key_columns, forms, &key)
        }
    })
}

/// What identifies a message for a consumer that de-duplicates: the
/// (commit SCN, XID, index) headers every event message carries. No two
/// messages share one: a snapshot row's index is `CHUNK.ROW` (its read SCN
/// as the SCN, no XID), a tombstone's is its delete's with `.tombstone`, the
/// delete half of a key-changing update's is its index with `.delete`, and a
/// DDL event's is empty (its commit SCN and XID identify it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    pub commit_scn: String,
    pub xid: String,
    pub index: String,
}

impl EventId {
    /// The id in a message's headers; `None` without the commit SCN and
    /// XID headers (a message cdcctl did not write).
    pub fn from_headers<H: Headers>(headers: &H) -> Option<Self> {
        let get = |name: &str| {
            headers
                .iter()
                .find(|h| h.key == name)
                .and_then(|h| h.value)
                .and_then(|v| std::str::from_utf8(v).ok())
                .map(str::to_string)
        };
        Some(Self {
            commit_scn: get("cdcctl.commit_scn")?,
            xid: get("cdcctl.xid")?,
            index: get("cdcctl.index").unwrap_or_default(),
        })
    }
}

/// A message ready to produce.
pub(super) struct Outgoing {
    pub topic: Arc<str>,
    pub key: Option<String>,
    pub value: Option<String>,
    pub id: EventId,
    /// Debezium's `__debezium.oldkey` / `__debezium.newkey` on the halves
    /// of an update that changed the key.
    pub key_change: Option<(&'static str, String)>,
}

impl Outgoing {
    pub fn headers(&self) -> OwnedHeaders {
        let mut h = OwnedHeaders::new()
            .insert(Header {
                key: "cdcctl.commit_scn",
                value: Some(self.id.commit_scn.as_str()),
            })
            .insert(Header {
                key: "cdcctl.xid",
                value: Some(self.id.xid.as_str()),
            })
            .insert(Header {
                key: "cdcctl.index",
                value: Some(self.id.index.as_str()),
            });
        if let Some((name, key)) = &self.key_change {
            h = h.insert(Header {
                key: name,
                value: Some(key.as_str()),
            });
        }
        h
    }
}

/// Each snapshot row's place in its chunk: the rows of a chunk arrive
/// together, in key order.
#[derive(Debug, Default)]
pub(super) struct ChunkRows {
    /// (read SCN, chunk number) of the chunk being written.
    chunk: (u64, u32),
    seen: u64,
}

impl ChunkRows {
    /// The event's place in its chunk (0 for anything but a snapshot row).
    pub fn place(&mut self, event: &CapturedEvent) -> u64 {
        let CapturedEvent::Change(c) = event else {
            return 0;
        };
        if c.op != Op::Read {
            return 0;
        }
        let chunk = (c.source.scn, c.index);
        if self.chunk == chunk {
            self.seen += 1;
        } else {
            self.chunk = chunk;
            self.seen = 0;
        }
        self.seen
    }
}

/// The topic and key columns of each table met, worked out once per
/// table rather than per event: the routes, the server name and the keys
/// stay as they are for the sink's life.
#[derive(Debug, Default)]
pub(super) struct Routes(FastMap<String, FastMap<String, Route>>);

/// Looked up for every event by names the sink chose, so a fast hash
/// rather than one that resists chosen keys.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

#[derive(Debug, Clone)]
struct Route {
    topic: Option<Arc<str>>,
    key_columns: Arc<[String]>,
}

impl Routes {
    fn route(&mut self, config: &KafkaConfig, schema: &str, table: &str) -> Route {
        if let Some(route) = self.0.get(schema).and_then(|t| t.get(table)) {
            return route.clone();
        }
        let name = TableName {
            owner: schema.to_string(),
            table: table.to_string(),
        };
        let route = Route {
            topic: config.topic_for(schema, table).map(Arc::from),
            key_columns: config
                .key_columns
                .get(&name)
                .map_or_else(|| Arc::from([]), |k| Arc::from(k.as_slice())),
        };
        self.0
            .entry(name.owner)
            .or_default()
            .insert(name.table, route.clone());
        route
    }
}

/// How an event is turned into messages.
pub(super) struct Framing<'a> {
    pub config: &'a KafkaConfig,
    pub routes: &'a mut Routes,
    pub kinds: Option<&'a ColumnKinds>,
    /// The row's place in its snapshot chunk, for a snapshot row.
    pub snapshot_row: u64,
}

impl Framing<'_> {
    pub fn messages(&mut self, event: &CapturedEvent) -> Result<Vec<Outgoing>, SinkError> {
        match event {
            CapturedEvent::Change(c) => self.change_messages(c),
            // Debezium's schema change topic is the bare prefix, keyed by
            // the database the change belongs to.
            CapturedEvent::Ddl(d) => Ok(vec![Outgoing {
                topic: Arc::from(self.config.server_name.as_str()),
                key: Some(self.schema_change_key(&d.source.db)),
                value: Some(self.value(event)),
                id: EventId {
                    commit_scn: d.source.commit_scn.to_string(),
                    xid: d.source.xid.clone(),
                    index: String::new(),
                },
                key_change: None,
            }]),
        }
    }

    fn schema_change_key(&self, db: &str) -> String {
        let key = serde_json::json!({ "databaseName": db }).to_string();
        match self.config.forms.envelope {
            EnvelopeForm::Plain => key,
            EnvelopeForm::ConnectJson => schema_change_key_with_schema(&key),
        }
    }

    fn value(&self, event: &CapturedEvent) -> String {
        event.to_json_line_typed(self.config.forms, self.kinds)
    }

    fn change_messages(&mut self, c: &ChangeEvent) -> Result<Vec<Outgoing>, SinkError> {
        let (schema, table) = (&c.source.schema, &c.source.table);
        let route = self.routes.route(self.config, schema, table);
        let topic = route
            .topic
            .as_ref()
            .ok_or_else(|| topic::no_topic_for(schema, table, c.source.commit_scn))?;
        let forms = self.config.forms;
        let key = message_key(c, &route.key_columns, forms);
        if let Some(old) = changed_from(c, &route.key_columns, forms, key.as_deref()) {
            let new = key.unwrap_or_default();
            return Ok(self.key_change_messages(c, topic, old, new));
        }
        let id = self.id(c, "");
        let tombstone = (c.op == Op::Delete)
            .then(|| self.tombstone(topic, key.clone(), &id, None))
            .flatten();
        let mut out = Vec::with_capacity(1 + usize::from(tombstone.is_some()));
        out.push(Outgoing {
            topic: Arc::clone(topic),
            key,
            value: Some(c.to_json_line_typed(forms, self.kinds)),
            id,
            key_change: None,
        });
        out.extend(tombstone);
        Ok(out)
    }

    /// Debezium's three messages for an update that changed the key.
    fn key_change_messages(
        &self,
        c: &ChangeEvent,
        topic: &Arc<str>,
        old: String,
        new: String,
    ) -> Vec<Outgoing> {
        let mut delete = c.clone();
        delete.op = Op::Delete;
        delete.after = None;
        let mut create = c.clone();
        create.op = Op::Create;
        create.before = None;
        let delete_id = self.id(c, ".delete");
        let mut out = vec![Outgoing {
            topic: Arc::clone(topic),
            key: Some(old.clone()),
            value: Some(self.value(&CapturedEvent::Change(delete))),
            id: delete_id.clone(),
            key_change: Some(("__debezium.newkey", new.clone())),
        }];
        out.extend(self.tombstone(topic, Some(old.clone()), &delete_id, Some(new.clone())));
        out.push(Outgoing {
            topic: Arc::clone(topic),
            key: Some(new),
            value: Some(self.value(&CapturedEvent::Change(create))),
            id: self.id(c, ""),
            key_change: Some(("__debezium.oldkey", old)),
        });
        out
    }

    fn tombstone(
        &self,
        topic: &Arc<str>,
        key: Option<String>,
        deleted: &EventId,
        new_key: Option<String>,
    ) -> Option<Outgoing> {
        let key = key.filter(|_| self.config.tombstones)?;
        let index = format!("{}.tombstone", deleted.index.trim_end_matches(".delete"));
        Some(Outgoing {
            topic: Arc::clone(topic),
            key: Some(key),
            value: None,
            id: EventId {
                index,
                ..deleted.clone()
            },
            key_change: new_key.map(|k| ("__debezium.newkey", k)),
        })
    }

    fn id(&self, c: &ChangeEvent, suffix: &str) -> EventId {
        // Per message: itoa rather than the formatting machinery.
        let mut digits = itoa::Buffer::new();
        let mut index = String::with_capacity(24);
        index.push_str(digits.format(c.index));
        if c.op == Op::Read {
            index.push('.');
            index.push_str(digits.format(self.snapshot_row));
        } else {
            index.push_str(suffix);
        }
        EventId {
            commit_scn: digits.format(c.source.commit_scn).to_string(),
            xid: c.source.xid.clone(),
            index,
        }
    }
}

/// The old key of an update that changed its key to `new` (its message
/// key, from the after image).
fn changed_from(
    c: &ChangeEvent,
    columns: &[String],
    forms: ValueForms,
    new: Option<&str>,
) -> Option<String> {
    if c.op != Op::Update || c.after.is_none() {
        return None;
    }
    let new = new?;
    let old = key_of(c, c.before.as_ref()?, columns, forms)?;
    (old != new).then_some(old)
}
