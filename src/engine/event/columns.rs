//! The dictionary's columns of each table as the envelope needs them: the
//! kinds the value-form options apply to, and each column's type and
//! nullability in table order, which a Kafka Connect schema declares (kept
//! here once written, as every event of the table repeats it).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use super::forms::{ColumnKind, ValueForms};

/// One column of a table as the dictionary describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnType {
    pub name: String,
    /// The data type as the dictionary names it (`NUMBER`, `TIMESTAMP(6)
    /// WITH TIME ZONE`, `RAW`, ...).
    pub data_type: String,
    pub nullable: bool,
}

/// The columns of one table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableColumnTypes {
    kinds: BTreeMap<String, ColumnKind>,
    columns: Vec<ColumnType>,
    names: BTreeSet<String>,
    schemas: SchemaCache,
}

/// A table's Kafka Connect schemas as written, by server name and value
/// forms (one of each in a run). Not part of the table's description: a
/// clone starts empty and any two compare equal.
#[derive(Debug, Default)]
struct SchemaCache(Mutex<Vec<(String, ValueForms, Arc<str>)>>);

impl Clone for SchemaCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for SchemaCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for SchemaCache {}

impl TableColumnTypes {
    /// The kinds of the columns an option writes differently.
    pub fn kinds(&self) -> &BTreeMap<String, ColumnKind> {
        &self.kinds
    }

    /// Every column, in table order.
    pub fn columns(&self) -> &[ColumnType] {
        &self.columns
    }

    pub fn has_column(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The schema for this server name and these forms, written by `make`
    /// the first time only.
    pub(super) fn schema(
        &self,
        server: &str,
        forms: ValueForms,
        make: impl FnOnce() -> String,
    ) -> Arc<str> {
        // A panic elsewhere while the lock was held leaves a list that is
        // still whole: entries are only ever pushed.
        let mut known = self.schemas.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, _, text)) = known.iter().find(|(s, f, _)| s == server && *f == forms) {
            return Arc::clone(text);
        }
        let text: Arc<str> = make().into();
        known.push((server.to_string(), forms, Arc::clone(&text)));
        text
    }
}

/// Column kinds and types by schema, then table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnKinds {
    tables: BTreeMap<String, BTreeMap<String, TableColumnTypes>>,
}

impl ColumnKinds {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a table's next column (columns are added in table order).
    pub fn add(
        &mut self,
        schema: &str,
        table: &str,
        column: &str,
        data_type: &str,
        nullable: bool,
    ) {
        let t = self
            .tables
            .entry(schema.to_string())
            .or_default()
            .entry(table.to_string())
            .or_default();
        if let Some(kind) = ColumnKind::of_data_type(data_type) {
            t.kinds.insert(column.to_string(), kind);
        }
        t.names.insert(column.to_string());
        t.columns.push(ColumnType {
            name: column.to_string(),
            data_type: data_type.to_string(),
            nullable,
        });
    }

    /// The columns of a table, when the dictionary gave them.
    pub fn table(&self, schema: &str, table: &str) -> Option<&TableColumnTypes> {
        self.tables.get(schema)?.get(table)
    }
}
