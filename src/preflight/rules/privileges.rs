//! Privilege rules: system privileges and roles, views and packages,
//! profile limits, per-table grants.

use super::{inst, need, scoped};
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::remedy;
use crate::source::TableFacts;

pub fn priv_sys(f: &Facts, _d: &CheckDef) -> Outcome {
    let s = need!(f, session, "session");
    let i = need!(f, instance, "instance");
    let major = i.major_version().unwrap_or(19);
    let mut required = vec!["CREATE SESSION", "SELECT ANY TRANSACTION"];
    if major >= 12 {
        required.push("LOGMINING");
    }
    if i.cdb {
        required.push("SET CONTAINER");
    }
    let mut t = Tally::default();
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|p| !s.has_privilege(p))
        .collect();
    if !missing.is_empty() {
        t.fail(format!("{} lacks {}", s.user, missing.join(", ")));
    }
    // SELECT/FLASHBACK ANY TABLE may be replaced by per-table grants (priv-scope).
    let tables = scoped(f);
    for (any, obj) in [
        ("SELECT ANY TABLE", "SELECT"),
        ("FLASHBACK ANY TABLE", "FLASHBACK"),
    ] {
        if !s.has_privilege(any) {
            let uncovered = tables.iter().filter(|t| !has_grant(t, obj)).count();
            if uncovered > 0 || tables.is_empty() {
                t.fail(format!(
                    "{} lacks {any} and per-table {obj} on {uncovered} in-scope table(s)",
                    s.user
                ));
            }
        }
    }
    if !s.has_role("SELECT_CATALOG_ROLE") && !s.has_privilege("SELECT ANY DICTIONARY") {
        t.fail(format!(
            "{} has neither SELECT_CATALOG_ROLE nor SELECT ANY DICTIONARY: the V$ views cannot be read",
            s.user
        ));
    }
    // DBMS_LOGMNR is granted to EXECUTE_CATALOG_ROLE, not to LOGMINING, on
    // every release; a direct EXECUTE grant shows as a probe of the package
    // that compiled.
    if !s.has_role("EXECUTE_CATALOG_ROLE") && !s.has_role("DBA") {
        match s.inaccessible_objects.get("DBMS_LOGMNR") {
            Some(code) => t.fail(format!(
                "{} has neither EXECUTE_CATALOG_ROLE nor EXECUTE on SYS.DBMS_LOGMNR (a call fails with ORA-{code:05})",
                s.user
            )),
            None => t.note(format!(
                "{} lacks EXECUTE_CATALOG_ROLE but no probe found SYS.DBMS_LOGMNR unusable: EXECUTE is granted directly",
                s.user
            )),
        }
    }
    // Debezium (and Flink CDC on top of it) keeps a LogMiner flush table in
    // the user's default tablespace.
    if f.config.is_some() {
        if !s.has_privilege("CREATE TABLE") {
            t.fail(format!(
                "{} lacks CREATE TABLE: the connector cannot create its LogMiner flush table",
                s.user
            ));
        }
        if s.has_quota == Some(false) {
            t.fail(format!(
                "{} has no quota on its default tablespace {}: the flush table cannot grow (ORA-01950)",
                s.user,
                s.default_tablespace.clone().unwrap_or_default()
            ));
        }
        if !s.has_privilege("CREATE SEQUENCE") {
            t.warn(format!(
                "{} lacks CREATE SEQUENCE, which the Debezium grant script includes",
                s.user
            ));
        }
    } else if s.has_quota == Some(false) {
        t.note(format!(
            "no quota on {}: a Debezium connector could not create its flush table",
            s.default_tablespace.clone().unwrap_or_default()
        ));
    }
    t.note(format!("session privileges: {}", s.privileges.join(", ")));
    t.note(format!("session roles: {}", s.roles.join(", ")));
    t.finish(format!(
        "{} holds every system privilege and role cdcctl needs",
        s.user
    ))
}

fn has_grant(t: &TableFacts, privilege: &str) -> bool {
    t.granted.iter().any(|g| g.eq_ignore_ascii_case(privilege))
}

pub use crate::source::evidence::REQUIRED_OBJECTS;

pub fn priv_objects(f: &Facts, _d: &CheckDef) -> Outcome {
    let s = need!(f, session, "session");
    let mut t = Tally::default();
    let mut grants = Vec::new();
    for (obj, code) in &s.inaccessible_objects {
        if REQUIRED_OBJECTS.contains(&obj.as_str()) {
            t.fail(format!("{obj}: ORA-{code:05}"));
            // Grants go to the SYS views behind the V$ synonyms.
            grants.push(match obj.strip_prefix("V$") {
                Some(view) => format!("GRANT SELECT ON SYS.V_${view} TO c##dbzuser CONTAINER=ALL;"),
                None => format!("GRANT EXECUTE ON SYS.{obj} TO c##dbzuser CONTAINER=ALL;"),
            });
        } else {
            t.note(format!("{obj}: ORA-{code:05} (not needed for mining)"));
        }
    }
    t.finish(format!(
        "all {} LogMiner views and packages can be used",
        REQUIRED_OBJECTS.len()
    ))
    .fix(grants.join("\n"))
}

pub fn profile(f: &Facts, d: &CheckDef) -> Outcome {
    let s = need!(f, session, "session");
    let Some(p) = s.profile.as_ref() else {
        return Outcome::skip("the user's profile (DBA_PROFILES, DBA_USERS) could not be read");
    };
    let mut t = Tally::default();
    let unlimited = |v: &Option<String>| {
        v.as_deref()
            .map(|x| x.eq_ignore_ascii_case("UNLIMITED") || x.eq_ignore_ascii_case("DEFAULT"))
            .unwrap_or(true)
    };
    if !unlimited(&p.idle_time) {
        t.warn(format!(
            "profile {} limits IDLE_TIME to {} minutes: an idle capture session is dropped",
            p.profile,
            p.idle_time.clone().unwrap_or_default()
        ));
    }
    if !unlimited(&p.connect_time) {
        t.warn(format!(
            "profile {} limits CONNECT_TIME to {} minutes",
            p.profile,
            p.connect_time.clone().unwrap_or_default()
        ));
    }
    if !unlimited(&p.password_life_time) {
        t.warn(format!(
            "the password expires after {} days (PASSWORD_LIFE_TIME): ORA-28001 will stop capture",
            p.password_life_time.clone().unwrap_or_default()
        ));
    }
    if let Some(status) = p.account_status.as_deref() {
        t.note(format!("account status {status}"));
        if status.contains("LOCKED") || status.starts_with("EXPIRED") && !status.contains("GRACE") {
            t.fail(format!("the account is {status} (ORA-28000 / ORA-28001)"));
        } else if status.contains("GRACE") {
            t.warn(format!(
                "the account is {status}: the password must be changed"
            ));
        }
    }
    if let Some(exp) = p.expiry_date {
        let days = (exp - f.now()).num_days();
        let limit = d.threshold("expiry_warn_days", 30.0) as i64;
        t.note(format!("password expires {exp}"));
        if days <= limit {
            t.warn(format!("the password expires in {days} day(s)"));
        }
    }
    let cdb = f.instance.as_ref().is_some_and(|i| i.cdb);
    let common = cdb && s.con_name == "CDB$ROOT";
    let mut fix = profile_fix(common);
    if cdb && !common {
        // A local user and its profile live in the PDB; a DBA's session
        // starts in the root, where the name would need C## (ORA-65140).
        fix = crate::preflight::remedy::in_container(&fix, &s.con_name);
    }
    t.finish(format!(
        "profile {} has no limit that drops a long session",
        p.profile
    ))
    .fix(fix)
}

/// A profile without the limits that drop a capture. In CDB$ROOT a profile
/// is common and its name needs the `C##` prefix (ORA-65140 otherwise),
/// and the common user takes it in every container.
fn profile_fix(common: bool) -> String {
    let (name, all) = if common {
        ("C##CDC_PROFILE", " CONTAINER=ALL")
    } else {
        ("CDC_PROFILE", "")
    };
    format!(
        "CREATE PROFILE {name} LIMIT IDLE_TIME UNLIMITED CONNECT_TIME UNLIMITED \
         PASSWORD_LIFE_TIME UNLIMITED{all};\nALTER USER c##dbzuser PROFILE {name}{all};"
    )
}

pub fn priv_scope(f: &Facts, _d: &CheckDef) -> Outcome {
    let s = need!(f, session, "session");
    let tables = need!(f, tables, "tables");
    if tables.is_empty() {
        return Outcome::skip("no table in scope");
    }
    let mut t = Tally::default();
    let any_select = s.has_privilege("SELECT ANY TABLE");
    let any_flash = s.has_privilege("FLASHBACK ANY TABLE");
    let mut grants = Vec::new();
    for tab in tables {
        let mut lacks = Vec::new();
        if !any_select && !has_grant(tab, "SELECT") {
            lacks.push("SELECT");
        }
        if !any_flash && !has_grant(tab, "FLASHBACK") {
            lacks.push("FLASHBACK");
        }
        if !lacks.is_empty() {
            t.fail(format!("{}: no {} grant", tab.name, lacks.join(" or ")));
            grants.push(format!(
                "GRANT {} ON {} TO c##dbzuser;",
                lacks.join(", "),
                remedy::sql_table(&tab.name)
            ));
        }
    }
    let how = if any_select && any_flash {
        "SELECT ANY TABLE and FLASHBACK ANY TABLE".to_string()
    } else {
        "per-table grants".to_string()
    };
    let _ = inst(f);
    t.finish(format!(
        "{} in-scope table(s) covered by {how}",
        tables.len()
    ))
    .fix(grants.join("\n"))
}
