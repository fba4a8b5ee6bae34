//! Remediation as the operator runs it: the catalog's templates written out
//! with the names the facts hold (the connected user, its tablespace, the
//! tables, sequences and PDBs a rule found), so a fix is copied, not edited.

use crate::source::{SessionFacts, TableName};

/// An Oracle name as SQL takes it: bare when it is an ordinary upper-case
/// identifier, in double quotes otherwise.
pub fn sql_ident(name: &str) -> String {
    let ordinary = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_$#".contains(c));
    if ordinary {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// `OWNER.TABLE`, each part quoted where SQL needs it.
pub fn sql_table(name: &TableName) -> String {
    format!("{}.{}", sql_ident(&name.owner), sql_ident(&name.table))
}

/// One statement per table from a template naming `owner.table`.
pub fn per_table<'a>(template: &str, tables: impl IntoIterator<Item = &'a TableName>) -> String {
    tables
        .into_iter()
        .map(|t| template.replace("owner.table", &sql_table(t)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Puts the connected user (and its default tablespace) into the
/// catalog's example statements. `CONTAINER=ALL` is kept only where Oracle
/// accepts it: a common user in a CDB (a local user or a non-CDB raises
/// ORA-65050 / ORA-65090 on it).
pub fn personalize(text: &str, session: Option<&SessionFacts>, cdb: Option<bool>) -> String {
    let Some(s) = session.filter(|s| !s.user.is_empty()) else {
        return text.to_string();
    };
    let user = sql_ident(&s.user);
    let mut out = text
        .replace("c##dbzuser", &user)
        .replace("connect_user", &user);
    if let Some(ts) = &s.default_tablespace {
        out = out.replace("logminer_tbs", &sql_ident(ts));
    }
    let common = s.common_user || s.user.to_ascii_uppercase().starts_with("C##");
    if cdb == Some(false) {
        out = out.replace(" CONTAINER=ALL", "");
    } else if cdb == Some(true) && !common {
        // A statement for a common user (one a rule proposes to create)
        // keeps its clause; the connected local user's lose theirs.
        out = out
            .split('\n')
            .map(|line| {
                if line.to_ascii_uppercase().contains("C##") {
                    line.to_string()
                } else {
                    line.replace(" CONTAINER=ALL", "")
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    out
}

/// The common user a local user's capture would need in a CDB: its name
/// with the `C##` prefix Oracle requires of common users (by default),
/// written as SQL takes it.
pub fn common_user_for(user: &str) -> String {
    if user.to_ascii_uppercase().starts_with("C##") {
        sql_ident(user)
    } else {
        sql_ident(&format!("C##{user}"))
    }
}

/// Runs the statements that name one of `tables` inside `pdb`: a session
/// in CDB$ROOT cannot see a PDB's tables (ORA-00942), so each run of such
/// lines is put between `ALTER SESSION SET CONTAINER` to the PDB and back
/// to the root, where the statements around them (common grants) belong.
pub fn in_table_container(text: &str, pdb: &str, tables: &[TableName]) -> String {
    let names: Vec<String> = tables.iter().map(sql_table).collect();
    let names_a_table = |line: &str| names.iter().any(|n| names_table(line, n));
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let local = names_a_table(line);
        if local && !inside {
            out.push(format!("ALTER SESSION SET CONTAINER = {};", sql_ident(pdb)));
        } else if !local && inside {
            out.push("ALTER SESSION SET CONTAINER = CDB$ROOT;".to_string());
        }
        inside = local;
        out.push(line.to_string());
    }
    if inside {
        out.push("ALTER SESSION SET CONTAINER = CDB$ROOT;".to_string());
    }
    out.join("\n")
}

/// Runs `text` inside `container`, from the root and back: for what
/// belongs to a PDB (a local user, its profile).
pub fn in_container(text: &str, container: &str) -> String {
    format!(
        "ALTER SESSION SET CONTAINER = {};\n{text}\nALTER SESSION SET CONTAINER = CDB$ROOT;",
        sql_ident(container)
    )
}

/// Whether `line` names the table `name` (`OWNER.TABLE` as SQL takes it),
/// not merely a longer name starting with it.
fn names_table(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        let ident =
            |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || "_$#\"".contains(c));
        !ident(before) && !ident(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_statements_switch_to_the_pdb_and_back_issue36() {
        let orders = TableName {
            owner: "APP".into(),
            table: "ORDERS".into(),
        };
        let text = "GRANT LOGMINING TO C##CDCCTL CONTAINER=ALL;\n\
                    GRANT SELECT, FLASHBACK ON APP.ORDERS TO C##CDCCTL;\n\
                    GRANT SELECT ON APP.ORDERS_HIST TO C##CDCCTL;";
        assert_eq!(
            in_table_container(text, "ORCLPDB1", std::slice::from_ref(&orders)),
            "GRANT LOGMINING TO C##CDCCTL CONTAINER=ALL;\n\
             ALTER SESSION SET CONTAINER = ORCLPDB1;\n\
             GRANT SELECT, FLASHBACK ON APP.ORDERS TO C##CDCCTL;\n\
             ALTER SESSION SET CONTAINER = CDB$ROOT;\n\
             GRANT SELECT ON APP.ORDERS_HIST TO C##CDCCTL;"
        );
        assert_eq!(
            in_table_container("ALTER SYSTEM SWITCH LOGFILE;", "P", &[orders]),
            "ALTER SYSTEM SWITCH LOGFILE;"
        );
    }

    fn session(user: &str, common: bool) -> SessionFacts {
        SessionFacts {
            user: user.into(),
            common_user: common,
            default_tablespace: Some("USERS".into()),
            ..SessionFacts::default()
        }
    }

    #[test]
    fn grants_name_the_connected_user_and_its_tablespace() {
        let t = "GRANT LOGMINING TO c##dbzuser CONTAINER=ALL;\nALTER USER c##dbzuser QUOTA UNLIMITED ON logminer_tbs CONTAINER=ALL;";
        assert_eq!(
            personalize(t, Some(&session("C##CDCCTL", true)), Some(true)),
            "GRANT LOGMINING TO C##CDCCTL CONTAINER=ALL;\nALTER USER C##CDCCTL QUOTA UNLIMITED ON USERS CONTAINER=ALL;"
        );
        assert_eq!(
            personalize(t, Some(&session("CDC", false)), Some(true)),
            "GRANT LOGMINING TO CDC;\nALTER USER CDC QUOTA UNLIMITED ON USERS;",
            "a local user takes no CONTAINER clause"
        );
        assert_eq!(
            personalize(t, Some(&session("cdc", false)), Some(false)),
            "GRANT LOGMINING TO \"cdc\";\nALTER USER \"cdc\" QUOTA UNLIMITED ON USERS;"
        );
        assert_eq!(personalize(t, None, None), t, "unknown user: the template");
        let create = "CREATE USER C##CDC IDENTIFIED BY x CONTAINER=ALL;\nGRANT LOGMINING TO connect_user CONTAINER=ALL;";
        assert_eq!(
            personalize(create, Some(&session("CDC", false)), Some(true)),
            "CREATE USER C##CDC IDENTIFIED BY x CONTAINER=ALL;\nGRANT LOGMINING TO CDC;",
            "a common user to create keeps the clause the local one loses"
        );
    }

    #[test]
    fn the_common_user_of_a_local_one_takes_the_prefix_once() {
        assert_eq!(common_user_for("CDCUSER"), "C##CDCUSER");
        assert_eq!(common_user_for("C##DBZ"), "C##DBZ");
        assert_eq!(common_user_for("cdc"), "\"C##cdc\"");
    }

    #[test]
    fn table_statements_quote_names_that_need_it() {
        let tables = [
            TableName {
                owner: "APP".into(),
                table: "ORDERS".into(),
            },
            TableName {
                owner: "App".into(),
                table: "my table".into(),
            },
        ];
        assert_eq!(
            per_table(
                "ALTER TABLE owner.table ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;",
                &tables
            ),
            "ALTER TABLE APP.ORDERS ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;\n\
             ALTER TABLE \"App\".\"my table\" ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;"
        );
    }
}
