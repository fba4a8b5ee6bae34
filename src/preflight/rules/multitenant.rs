//! Multitenant rules: the mining container per release, the target PDB,
//! CONTAINER_DATA of the common user.

use super::need;
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::remedy;

/// The PDB the capture targets: the config's, else the session's container.
fn target_pdb(f: &Facts) -> Option<String> {
    let i = f.instance.as_ref()?;
    if let Some(c) = f.config.as_ref() {
        if let Some(p) = c.pdb_name() {
            return Some(p.to_string());
        }
        if c.format.is_flink() {
            if let Some(db) = c.database_name() {
                if i.pdbs.iter().any(|p| p.name.eq_ignore_ascii_case(db)) {
                    return Some(db.to_string());
                }
            }
        }
    }
    let s = f.session.as_ref()?;
    (s.con_name != "CDB$ROOT" && !s.con_name.is_empty()).then(|| s.con_name.clone())
}

pub fn cdb_mining_container(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let s = need!(f, session, "session");
    if !i.cdb {
        return Outcome::pass("not a multitenant database").with("V$DATABASE.CDB = NO");
    }
    let major = i.major_version().unwrap_or(19);
    let ev = format!(
        "Oracle {}, CON_NAME = {}, user {} ({})",
        i.version,
        s.con_name,
        s.user,
        if s.common_user { "common" } else { "local" }
    );
    let in_root = s.con_name == "CDB$ROOT";
    if major >= 21 {
        if in_root && !s.common_user {
            return Outcome::fail("a local user cannot be in CDB$ROOT")
                .with(ev)
                .fix(create_common_user(f, s));
        }
        return Outcome::pass(if in_root {
            "mining from CDB$ROOT with a common user".to_string()
        } else {
            format!("per-PDB mining in {} is allowed from 21c", s.con_name)
        })
        .with(ev);
    }
    let mut t = Tally::default();
    if !in_root {
        t.fail(format!(
            "connected to {} on {}: before 21c LogMiner runs only in CDB$ROOT (ORA-65040)",
            s.con_name, i.version
        ));
    }
    if !s.common_user {
        t.fail(format!(
            "{} is a local user: mining needs a common C## user in CDB$ROOT",
            s.user
        ));
    }
    t.note(ev);
    let outcome = t.finish("mining from CDB$ROOT with a common user");
    if s.common_user {
        return outcome.fix(format!(
            "-- {} is a common user: connect it to the CDB root service (not the PDB's), \
             and set the PDB in the connector (database.pdb.name = {})",
            remedy::sql_ident(&s.user),
            pdb_hint(f, s)
        ));
    }
    outcome.fix(create_common_user(f, s))
}

/// The statements that give a local user's capture a common user of its
/// own name (`C##` prefixed), and where to connect it.
pub(crate) fn create_common_user(f: &Facts, s: &crate::source::SessionFacts) -> String {
    let user = remedy::common_user_for(&s.user);
    format!(
        "-- in CDB$ROOT, as a DBA: a common user for capture in place of the local {local}\n\
         CREATE USER {user} IDENTIFIED BY \"<password>\" CONTAINER=ALL;\n\
         GRANT CREATE SESSION, SET CONTAINER, LOGMINING, SELECT ANY TRANSACTION, SELECT_CATALOG_ROLE, EXECUTE_CATALOG_ROLE TO {user} CONTAINER=ALL;\n\
         -- then connect as {user} to the CDB root service and set the PDB in the connector (database.pdb.name = {pdb})",
        local = remedy::sql_ident(&s.user),
        pdb = pdb_hint(f, s),
    )
}

/// The PDB the capture targets, for the connector's `database.pdb.name`:
/// the config's, else the container the session is in, else the only
/// open PDB.
fn pdb_hint(f: &Facts, s: &crate::source::SessionFacts) -> String {
    target_pdb(f)
        .or_else(|| {
            (s.con_name != "CDB$ROOT" && !s.con_name.is_empty()).then(|| s.con_name.clone())
        })
        .or_else(|| f.table_pdb())
        .unwrap_or_else(|| "<PDB>".into())
}

pub fn pdb_open(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    if !i.cdb {
        return Outcome::pass("not a multitenant database");
    }
    let Some(name) = target_pdb(f) else {
        // No PDB named: every user PDB should be open for capture to see it.
        let user_pdbs: Vec<_> = i.pdbs.iter().filter(|p| p.name != "PDB$SEED").collect();
        if user_pdbs.is_empty() {
            return Outcome::fail("the CDB has no pluggable database to capture from");
        }
        let mut t = Tally::default();
        let mut closed = Vec::new();
        for p in &user_pdbs {
            t.note(format!("{} (con_id {}): {}", p.name, p.con_id, p.open_mode));
            if p.open_mode != "READ WRITE" || p.restricted {
                closed.push(p.name.as_str());
                t.warn(format!(
                    "PDB {} is {}{}: its changes cannot be captured until it is open read-write",
                    p.name,
                    p.open_mode,
                    if p.restricted { " RESTRICTED" } else { "" }
                ));
            }
        }
        return t
            .finish(format!(
                "no PDB named by the config; all {} PDB(s) are open read-write",
                user_pdbs.len()
            ))
            .fix(open_pdbs(&closed));
    };
    let Some(p) = i.pdbs.iter().find(|p| p.name.eq_ignore_ascii_case(&name)) else {
        let known: Vec<&str> = i.pdbs.iter().map(|p| p.name.as_str()).collect();
        return Outcome::fail(format!("PDB {name} does not exist"))
            .with(format!("V$PDBS: {}", known.join(", ")));
    };
    let ev = format!(
        "{} (con_id {}): {}{}",
        p.name,
        p.con_id,
        p.open_mode,
        if p.restricted { ", RESTRICTED" } else { "" }
    );
    let mut t = Tally::default();
    if p.open_mode != "READ WRITE" {
        t.fail(format!("PDB {} is {}, not READ WRITE", p.name, p.open_mode));
    }
    if p.restricted {
        t.fail(format!("PDB {} is open RESTRICTED", p.name));
    }
    if p.application_root || p.application_pdb {
        t.fail(format!("PDB {} is an application container", p.name));
    }
    t.note(ev);
    let outcome = t.finish(format!("PDB {} is open read-write", p.name));
    if p.open_mode != "READ WRITE" || p.restricted {
        return outcome.fix(open_pdbs(&[p.name.as_str()]));
    }
    outcome
}

/// Opening each PDB read-write, and keeping it so across restarts. A PDB
/// open (or open restricted) must be closed first: OPEN on it raises
/// ORA-65019.
fn open_pdbs(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            let n = remedy::sql_ident(n);
            format!(
                "ALTER PLUGGABLE DATABASE {n} CLOSE IMMEDIATE;  -- if it is open read-only or restricted\n\
                 ALTER PLUGGABLE DATABASE {n} OPEN READ WRITE;\n\
                 ALTER PLUGGABLE DATABASE {n} SAVE STATE;"
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn container_data(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let s = need!(f, session, "session");
    if !i.cdb {
        return Outcome::pass("not a multitenant database");
    }
    if s.con_name != "CDB$ROOT" {
        return Outcome::pass(format!(
            "the session is in {}: V$ views show that container's rows",
            s.con_name
        ));
    }
    if let Some(code) = s.inaccessible_objects.get("CDB_CONTAINER_DATA") {
        return Outcome::skip(format!(
            "CDB_CONTAINER_DATA could not be read (ORA-{code:05}); run the check as a user who can select from it"
        ));
    }
    let ev = format!(
        "CDB_CONTAINER_DATA for {}: {}",
        s.user,
        s.container_data.join(", ")
    );
    if s.container_data.iter().any(|c| c == "ALL") {
        return Outcome::pass("CONTAINER_DATA = ALL").with(ev);
    }
    match target_pdb(f) {
        Some(pdb) if s.container_data.iter().any(|c| c.eq_ignore_ascii_case(&pdb)) => {
            Outcome::pass(format!("CONTAINER_DATA lists {pdb}")).with(ev)
        }
        Some(pdb) => Outcome::warn(format!(
            "CONTAINER_DATA of {} does not include {pdb}: V$TRANSACTION at root hides its open transactions",
            s.user
        ))
        .with(ev),
        None => Outcome::warn(format!(
            "CONTAINER_DATA of {} is not ALL: V$TRANSACTION at root may hide PDB transactions",
            s.user
        ))
        .with(ev),
    }
}
