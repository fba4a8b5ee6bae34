//! The dictionary's columns of each table as the envelope needs them: the
//! kinds the value-form options apply to, and each column's type and
//! nullability in table order, which a Kafka Connect schema declares.

use std::collections::BTreeMap;

use super::forms::ColumnKind;

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
}

impl TableColumnTypes {
    /// The kinds of the columns an option writes differently.
    pub fn kinds(&self) -> &BTreeMap<String, ColumnKind> {
        &self.kinds
    }

    /// Every column, in table order.
    pub fn columns(&self) -> &[ColumnType] {
        &self.columns
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
