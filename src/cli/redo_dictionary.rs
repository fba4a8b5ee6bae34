//! The `--dictionary` file of `redo parse` and `redo replay` (the data
//! dictionary's character sets and column types) and `redo parse`'s
//! `--charset`: what turns character data LogMiner printed as `HEXTORAW`
//! back into text.

use std::collections::BTreeMap;
use std::path::Path;

use cdcctl::engine::charset::{Charset, CharsetDictionary};
use cdcctl::engine::event::ColumnKinds;
use cdcctl::source::split_qualified;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DictionaryFile {
    /// May be left out when `--charset` names it.
    #[serde(default)]
    charset: Option<String>,
    #[serde(default = "default_nchar_charset")]
    nchar_charset: String,
    #[serde(default)]
    tables: BTreeMap<String, BTreeMap<String, String>>,
}

fn default_nchar_charset() -> String {
    "AL16UTF16".into()
}

/// Reads `--dictionary`: tables as `OWNER.TABLE` (quoted parts keep case).
/// The column types also give the kinds the value-form options apply to.
/// `charset` (from `--charset`) overrides the file's database character set.
pub fn load(
    path: &Path,
    charset: Option<&str>,
) -> Result<(CharsetDictionary, ColumnKinds), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}; check --dictionary", path.display()))?;
    let file: DictionaryFile = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a dictionary file: {e}", path.display()))?;
    let database = charset.or(file.charset.as_deref()).ok_or_else(|| {
        format!(
            "{}: no `charset` (the database character set); add it, or give --charset",
            path.display()
        )
    })?;
    let named = |name: &str| {
        Charset::from_oracle_name(name).map_err(|e| format!("{}: {e}", path.display()))
    };
    let mut dict = CharsetDictionary::new(named(database)?, named(&file.nchar_charset)?);
    let mut kinds = ColumnKinds::new();
    for (name, columns) in &file.tables {
        let (owner, table) = split_qualified(name)
            .ok_or_else(|| format!("{}: table `{name}` is not OWNER.TABLE", path.display()))?;
        for (column, data_type) in columns {
            dict.add_column(&owner, &table, column, data_type);
            // The dictionary file does not say which columns allow NULL.
            kinds.add(&owner, &table, column, data_type, true);
        }
    }
    Ok((dict, kinds))
}

/// What `redo parse` decodes `HEXTORAW` values with: the dictionary (its
/// character set overridden by `--charset`), or with `--charset` alone
/// every such value as text in that set; `None` leaves them as hex.
pub fn for_parse(
    dictionary: Option<&Path>,
    charset: Option<&str>,
) -> Result<Option<CharsetDictionary>, String> {
    match (dictionary, charset) {
        (Some(path), _) => load(path, charset).map(|(dict, _)| Some(dict)),
        (None, Some(name)) => {
            let database =
                Charset::from_oracle_name(name).map_err(|e| format!("--charset: {e}"))?;
            let national = Charset::from_oracle_name("AL16UTF16")
                .map_err(|e| format!("the national character set: {e}"))?;
            Ok(Some(
                CharsetDictionary::new(database, national).unknown_tables_as_text(),
            ))
        }
        (None, None) => Ok(None),
    }
}
