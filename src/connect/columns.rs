//! What capture needs to know of the tables in scope, from their
//! dictionary rows: key and LOB columns, which columns hold bytes, the
//! column kinds the value-form options apply to, and the character-set
//! dictionary that decodes `HEXTORAW` character data.

use std::collections::BTreeMap;

use crate::engine::charset::{Charset, CharsetDictionary};
use crate::engine::event::{is_binary_data_type, ColumnKinds};
use crate::source::{InstanceFacts, TableFacts, TableName};

/// What the engine needs of the tables in scope: key columns, LOB columns,
/// and every column's data type (to decode `HEXTORAW` character data).
#[derive(Default)]
pub(crate) struct TableColumns {
    pub keys: BTreeMap<TableName, Vec<String>>,
    pub lobs: BTreeMap<TableName, Vec<String>>,
    /// Every column of each table, in table order.
    pub all: BTreeMap<TableName, Vec<String>>,
    types: Vec<(TableName, String, String)>,
    kinds: ColumnKinds,
}

impl TableColumns {
    /// The columns whose written form `--decimal-handling` and
    /// `--time-precision` choose, and every column's type and nullability
    /// for `--envelope connect-json`.
    pub fn kinds(&self) -> ColumnKinds {
        self.kinds.clone()
    }

    /// Per table, the columns whose values are bytes.
    pub fn binary(&self) -> BTreeMap<TableName, Vec<String>> {
        let mut out: BTreeMap<TableName, Vec<String>> = BTreeMap::new();
        for (name, column, data_type) in &self.types {
            if is_binary_data_type(data_type) {
                out.entry(name.clone()).or_default().push(column.clone());
            }
        }
        out
    }

    /// The character-set dictionary, when the database named character
    /// sets cdcctl decodes. An unknown one is said once and leaves hex in
    /// place (the engine then reports each such column).
    pub fn charsets(&self, instance: &InstanceFacts) -> Option<CharsetDictionary> {
        if instance.nls_characterset.is_empty() {
            return None;
        }
        let national = if instance.nls_nchar_characterset.is_empty() {
            "AL16UTF16"
        } else {
            instance.nls_nchar_characterset.as_str()
        };
        let pair = Charset::from_oracle_name(&instance.nls_characterset)
            .and_then(|db| Ok((db, Charset::from_oracle_name(national)?)));
        let (database, national) = match pair {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(
                    "{e}: character data LogMiner prints as HEXTORAW stays hex (NLS_CHARACTERSET {}, NLS_NCHAR_CHARACTERSET {national})",
                    instance.nls_characterset
                );
                return None;
            }
        };
        let mut dict = CharsetDictionary::new(database, national);
        for (name, column, data_type) in &self.types {
            dict.add_column(&name.owner, &name.table, column, data_type);
        }
        Some(dict)
    }
}

/// Key columns of every table, and the LOB, XMLType and JSON columns of those
/// that have any: an UPDATE or DELETE image lacking one gets the
/// unavailable marker for it.
pub(crate) fn table_columns(tables: &[TableFacts]) -> TableColumns {
    let keys = tables
        .iter()
        .map(|t| (t.name.clone(), t.key_columns()))
        .collect();
    let lobs = tables
        .iter()
        .map(|t| {
            let lobs = t
                .columns
                .iter()
                .filter(|c| {
                    matches!(
                        c.data_type.to_ascii_uppercase().as_str(),
                        "CLOB" | "NCLOB" | "BLOB" | "XMLTYPE" | "JSON"
                    )
                })
                .map(|c| c.name.clone())
                .collect::<Vec<_>>();
            (t.name.clone(), lobs)
        })
        .filter(|(_, lobs)| !lobs.is_empty())
        .collect();
    let all = tables
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.columns.iter().map(|c| c.name.clone()).collect(),
            )
        })
        .collect();
    let types = tables
        .iter()
        .flat_map(|t| {
            t.columns
                .iter()
                .map(|c| (t.name.clone(), c.name.clone(), c.data_type.clone()))
        })
        .collect();
    let mut kinds = ColumnKinds::new();
    for t in tables {
        for c in &t.columns {
            let (owner, table) = (&t.name.owner, &t.name.table);
            kinds.add(owner, table, &c.name, &c.data_type, c.nullable);
        }
    }
    TableColumns {
        keys,
        lobs,
        all,
        types,
        kinds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn orders_with(columns: &[(&str, &str)]) -> TableFacts {
        TableFacts {
            name: TableName {
                owner: "APP".into(),
                table: "ORDERS".into(),
            },
            columns: columns
                .iter()
                .map(|(name, ty)| crate::source::ColumnFacts {
                    name: (*name).into(),
                    data_type: (*ty).into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn character_columns_decode_with_the_database_and_national_character_sets() {
        use crate::engine::charset::TextColumn;
        let columns = table_columns(&[orders_with(&[
            ("ID", "NUMBER"),
            ("NOTE", "VARCHAR2"),
            ("NAME_N", "NVARCHAR2"),
        ])]);
        let facts = InstanceFacts {
            nls_characterset: "ZHS16GBK".into(),
            nls_nchar_characterset: "AL16UTF16".into(),
            ..Default::default()
        };
        let dict = columns.charsets(&facts).expect("known character sets");
        assert_eq!(dict.column("APP", "ORDERS", "ID"), Some(None));
        assert_eq!(
            dict.column("APP", "ORDERS", "NOTE"),
            Some(Some(TextColumn::Database))
        );
        assert_eq!(
            dict.column("APP", "ORDERS", "NAME_N"),
            Some(Some(TextColumn::National))
        );
        // "中文" in GBK, as LogMiner prints it when it cannot show the text.
        assert_eq!(
            dict.charset(TextColumn::Database).decode_hex("d6d0cec4"),
            Ok("中文".to_string())
        );
    }

    #[test]
    fn unknown_or_unreported_character_sets_leave_hex_for_the_engine_to_report() {
        let columns = table_columns(&[orders_with(&[("NOTE", "VARCHAR2")])]);
        assert!(columns.charsets(&InstanceFacts::default()).is_none());
        let odd = InstanceFacts {
            nls_characterset: "XX8NOSUCH".into(),
            ..Default::default()
        };
        assert!(columns.charsets(&odd).is_none());
    }
}
