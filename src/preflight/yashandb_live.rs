//! YashanDB live catalog for preflight: the check catalog's
//! `dialect = "yashandb"` queries, run once each over ODBC by
//! `source::yashandb`, read back through the evidence mapping so a live run
//! and a `collect --dialect yashandb` file become the same facts.

use crate::preflight::collect_line::expand_scope;
use crate::preflight::defs::{load, queries, CatalogError};
use crate::source::Dialect;

/// Every YashanDB query of the catalog once, as `(name, sql)` with its
/// scope filled for the whole database: the live run has no `--table`.
pub fn statements() -> Result<Vec<(String, String)>, CatalogError> {
    let defs = load()?;
    Ok(queries(&defs, Dialect::Yashandb)
        .into_iter()
        .map(|q| {
            (
                q.name.clone(),
                expand_scope(Dialect::Yashandb, &q.text, &[]),
            )
        })
        .collect())
}

/// Connects and reads every YashanDB query of the catalog once.
#[cfg(feature = "yashandb-odbc")]
pub fn open(
    url: &str,
    password: &crate::source::oracle::Password,
) -> Result<crate::source::evidence::EvidenceCatalog, crate::source::SourceError> {
    let statements =
        statements().map_err(|e| crate::source::SourceError::Invalid(e.to_string()))?;
    let ev = crate::source::yashandb::read(url, password, &statements)?;
    Ok(crate::source::evidence::EvidenceCatalog::from_file(
        &ev, url,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_run_reads_each_yashandb_query_once_with_its_scope_filled() {
        let list = statements().expect("the check catalog loads");
        assert!(!list.is_empty());
        let mut names: Vec<&str> = list.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a query read twice");
        for (name, sql) in &list {
            assert!(!sql.contains(":scope"), "{name} keeps a placeholder: {sql}");
        }
    }
}
