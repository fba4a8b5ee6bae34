//! Table names as operators type them, and the one rule that turns them into
//! the tables `tail`, `run`, `partitions` and `preflight --table` work on.
//!
//! A bare `ORDERS` means that table in any schema the user can see; unquoted
//! names are upper-cased as Oracle does, quoted ones keep their case; `%`
//! and `_` are LIKE wildcards. A name that matches one table resolves to it
//! (`APP.ORDERS`); one that matches several, or nothing, is a usage error
//! naming the candidates, so nothing is ever mined forever for a typo.

use crate::source::{split_qualified, Catalog, TableFacts, TablePattern};

use crate::preflight::remedy::{sql_ident, sql_table};

use super::suggest;

/// One `[SCHEMA.]TABLE` as typed, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSpec {
    /// `None`: any schema the user can see.
    pub owner: Option<String>,
    pub table: String,
}

/// A name part as an operator types it: as SQL needs it (quoted unless
/// Oracle reads it back unchanged), wildcards left bare, so what a message
/// names can be pasted back on the command line.
fn typed(part: &str) -> String {
    if part.contains('%') {
        part.to_string()
    } else {
        sql_ident(part)
    }
}

impl std::fmt::Display for TableSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.owner {
            Some(o) => write!(f, "{}.{}", typed(o), typed(&self.table)),
            None => write!(f, "{}", typed(&self.table)),
        }
    }
}

impl TableSpec {
    /// `%` makes a pattern; `_` alone does not, since it is common in names.
    pub fn is_pattern(&self) -> bool {
        self.table.contains('%') || self.owner.as_deref().is_some_and(|o| o.contains('%'))
    }

    fn pattern(&self) -> TablePattern {
        TablePattern {
            owner: self.owner.clone().unwrap_or_else(|| "%".into()),
            table: self.table.clone(),
        }
    }
}

/// A comma list of table names (the `TABLES` argument of `tail`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableList(pub Vec<TableSpec>);

impl std::fmt::Display for TableList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        write!(f, "{}", names.join(","))
    }
}

fn has_unquoted_dot(s: &str) -> bool {
    let mut quoted = false;
    s.chars().any(|c| {
        if c == '"' {
            quoted = !quoted;
        }
        c == '.' && !quoted
    })
}

/// Parses one `[SCHEMA.]TABLE`.
pub fn parse_spec(part: &str) -> Result<TableSpec, String> {
    let part = part.trim();
    let invalid = || format!("`{part}` is not a valid [SCHEMA.]TABLE name (wildcards: % and _)");
    if part.is_empty() {
        return Err("an empty table name; write [SCHEMA.]TABLE".into());
    }
    if has_unquoted_dot(part) {
        let (owner, table) = split_qualified(part).ok_or_else(invalid)?;
        Ok(TableSpec {
            owner: Some(owner),
            table,
        })
    } else {
        // The same rules as a qualified name.
        let (_, table) = split_qualified(&format!("X.{part}")).ok_or_else(invalid)?;
        Ok(TableSpec { owner: None, table })
    }
}

/// Parses `APP.ORDERS,APP.ORDER_%,LINES`.
pub fn parse_tables(text: &str) -> Result<TableList, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim) {
        if part.is_empty() {
            return Err(format!(
                "`{text}` has an empty table name; write [SCHEMA.]TABLE[,[SCHEMA.]TABLE...]"
            ));
        }
        out.push(parse_spec(part)?);
    }
    Ok(TableList(out))
}

/// What a list of names resolved to.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// What the engine filters on: exact names for names, patterns as typed.
    pub patterns: Vec<TablePattern>,
    /// Every table matched, in dictionary order, without duplicates.
    pub tables: Vec<TableFacts>,
    /// For headers: `APP.ORDERS,APP.ORDER_%`.
    pub label: String,
}

/// Resolves `specs` against what the connected user can see.
pub fn resolve(catalog: &mut dyn Catalog, specs: &[TableSpec]) -> Result<Resolved, String> {
    let mut out = Resolved::default();
    let mut labels = Vec::new();
    for spec in specs {
        let found = catalog
            .tables(&[spec.pattern()])
            .map_err(|e| format!("cannot list tables for `{spec}`: {e}"))?;
        let exact: Vec<&TableFacts> = found
            .iter()
            .filter(|t| {
                t.name.table == spec.table && spec.owner.as_ref().is_none_or(|o| *o == t.name.owner)
            })
            .collect();
        let (pattern, label, matched): (TablePattern, String, Vec<TableFacts>) =
            if !spec.is_pattern() && exact.len() == 1 {
                let t = exact[0].clone();
                let p = TablePattern {
                    owner: t.name.owner.clone(),
                    table: t.name.table.clone(),
                };
                (p, t.name.to_string(), vec![t])
            } else if !spec.is_pattern() && exact.len() > 1 {
                let names: Vec<String> = exact.iter().map(|t| sql_table(&t.name)).collect();
                return Err(format!(
                    "table {spec} exists in several schemas ({}): name one as SCHEMA.TABLE",
                    names.join(", ")
                ));
            } else if found.is_empty() {
                return Err(no_match(catalog, spec));
            } else {
                (spec.pattern(), spec.to_string(), found)
            };
        out.patterns.push(pattern);
        labels.push(label);
        for t in matched {
            if !out.tables.iter().any(|x| x.name == t.name) {
                out.tables.push(t);
            }
        }
    }
    out.label = labels.join(",");
    Ok(out)
}

fn no_match(catalog: &mut dyn Catalog, spec: &TableSpec) -> String {
    // Each visible table as it must be typed, beside its bare name: a
    // mistyped `mixedcase` is one letter case from `"MixedCase"`.
    let visible: Vec<(String, String)> = catalog
        .tables(&[])
        .map(|all| {
            all.into_iter()
                .map(|t| (sql_table(&t.name), t.name.table))
                .collect()
        })
        .unwrap_or_default();
    let all: Vec<&str> = visible.iter().map(|(typed, _)| typed.as_str()).collect();
    let hint = match &spec.owner {
        Some(_) => suggest::did_you_mean(&spec.to_string(), all.iter().copied()),
        None => {
            let close = suggest::close(&spec.table, visible.iter().map(|(_, t)| t.as_str()));
            let full: Vec<&str> = visible
                .iter()
                .filter(|(_, t)| close.contains(&t.as_str()))
                .map(|(typed, _)| typed.as_str())
                .take(3)
                .collect();
            suggest::question(&full)
        }
    };
    // One sentence: what failed, the rule it was read by, then either the
    // close names as a question or the names there are.
    let rule = "names are upper case unless written in double quotes";
    if hint.is_empty() && !all.is_empty() {
        let some: Vec<&str> = all.iter().copied().take(12).collect();
        format!(
            "no table matches `{spec}` ({rule}); the connected user can see {}",
            some.join(", ")
        )
    } else {
        format!("no table matches `{spec}` ({rule}){hint}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_accept_bare_qualified_and_wildcard_names() {
        let l = parse_tables("app.orders, APP.ORDER_%,lines,\"App\".\"Mixed\"").unwrap();
        assert_eq!(
            l.to_string(),
            "APP.ORDERS,APP.ORDER_%,LINES,\"App\".\"Mixed\""
        );
        assert_eq!(l.0[2].owner, None);
        assert!(l.0[1].is_pattern());
        assert!(!l.0[0].is_pattern());
    }

    #[test]
    fn tables_reject_empty_and_invalid_names() {
        assert!(parse_tables("APP.ORDERS,").is_err());
        assert!(parse_tables("A.B.C").is_err());
        assert!(parse_tables("APP.ORD ERS").is_err());
        assert!(parse_tables("x;drop").is_err());
    }

    /// The demo, its catalog reading inside the PDB as `tail` points it.
    fn sim() -> crate::source::sim::Sim {
        let mut s = match crate::source::sim::Sim::from_source("sim") {
            Some(Ok(s)) => s,
            _ => panic!("the demo scenario must load"),
        };
        if let Err(e) = s.set_pdb(Some("ORCLPDB1")) {
            panic!("the demo has ORCLPDB1: {e}");
        }
        s
    }

    #[test]
    fn a_bare_name_resolves_to_its_schema_and_a_typo_suggests_the_table() {
        let mut s = sim();
        let r = resolve(&mut s, &parse_tables("orders").unwrap().0).unwrap();
        assert_eq!(r.label, "APP.ORDERS");
        assert_eq!(r.patterns[0].owner, "APP");
        let e = resolve(&mut s, &parse_tables("ORDRS").unwrap().0).unwrap_err();
        assert!(e.contains("did you mean APP.ORDERS?"), "{e}");
        let e = resolve(&mut s, &parse_tables("APP.NOPE%").unwrap().0).unwrap_err();
        assert!(e.contains("no table matches `APP.NOPE%`"), "{e}");
    }

    #[test]
    fn mixed_case_tables_are_suggested_in_the_quotes_that_name_them() {
        let toml = r#"
name = "mixed"
[instance]
version = "19c"
cdb = false
db_name = "ORCL"
[connection]
user = "CDC"
container = "ORCL"
[[tables]]
owner = "APP"
name = "MixedCase"
primary_key = ["ID"]
columns = [{ name = "ID", type = "NUMBER", nullable = false }]
"#;
        let scenario = match crate::source::sim::Scenario::parse(toml, "test") {
            Ok(s) => s,
            Err(e) => panic!("scenario: {e}"),
        };
        let mut s = crate::source::sim::Sim::new(scenario, Default::default());
        for typed in ["APP.MIXEDCASE", "mixedcase", "APP.\"Mixedcase\""] {
            let e = resolve(&mut s, &parse_tables(typed).unwrap().0).unwrap_err();
            assert!(
                e.contains("did you mean APP.\"MixedCase\"?"),
                "{typed}: {e}"
            );
        }
        let e = resolve(&mut s, &parse_tables("APP.\"Mixedcase\"").unwrap().0).unwrap_err();
        assert!(e.contains("no table matches `APP.\"Mixedcase\"`"), "{e}");
        let r = resolve(&mut s, &parse_tables("APP.\"MixedCase\"").unwrap().0).unwrap();
        assert_eq!(r.tables.len(), 1);
    }
}
