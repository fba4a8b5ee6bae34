//! YashanDB rules (YStream): stream pool, archive and supplemental logging,
//! the YStream server, grants, stale servers, unsupported types.

use super::{is_lob_like, need, scoped};
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::source::YashanFacts;

fn ys(f: &Facts) -> Result<&YashanFacts, Outcome> {
    match f.instance.as_ref() {
        None => Err(Outcome::skip(f.missing_reason("instance"))),
        Some(i) => i.yashan.as_ref().ok_or_else(|| {
            Outcome::skip("the source provides no YashanDB facts (V$YSTREAM_SERVER)")
        }),
    }
}

macro_rules! need_ys {
    ($f:expr) => {
        match ys($f) {
            Ok(y) => y,
            Err(o) => return o,
        }
    };
}

fn configured_server(f: &Facts) -> Option<&str> {
    f.config
        .as_ref()
        .and_then(|c| c.get(&["ystream.servername"]))
}

pub fn pool(f: &Facts, _d: &CheckDef) -> Outcome {
    let y = need_ys!(f);
    match y.stream_pool_size.as_deref().map(str::trim) {
        None | Some("") | Some("0") => {
            Outcome::fail("STREAM_POOL_SIZE is not set: YStream cannot start")
        }
        Some(v) => Outcome::pass(format!("STREAM_POOL_SIZE = {v}")),
    }
}

pub fn arch_supp(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let mut t = Tally::default();
    if i.log_mode != "ARCHIVELOG" {
        t.fail(format!(
            "LOG_MODE is {}: YStream needs ARCHIVELOG",
            i.log_mode
        ));
    }
    if !i.supplemental_log_data_all {
        let missing: Vec<String> = scoped(f)
            .iter()
            .filter(|t| !t.has_log_group("ALL COLUMN LOGGING"))
            .map(|t| t.name.to_string())
            .collect();
        if f.tables.as_ref().is_none_or(|t| t.is_empty()) || !missing.is_empty() {
            t.fail(format!(
                "ALL COLUMNS supplemental logging is off at database level{}; enable it (with SUPPLEMENTAL LOG TABLE TYPE (HEAP)) before creating the YStream server",
                if missing.is_empty() { String::new() } else { format!(" and on {}", missing.join(", ")) }
            ));
        }
    }
    t.finish("archiving and all-column supplemental logging are on")
}

pub fn server(f: &Facts, _d: &CheckDef) -> Outcome {
    let y = need_ys!(f);
    let s = f.session.as_ref();
    let name = match configured_server(f) {
        Some(n) => n.to_string(),
        None if y.servers.len() == 1 => y.servers[0].server_name.clone(),
        None => {
            return Outcome::skip("no ystream.serverName in the config (--config FILE) to look for")
        }
    };
    let Some(srv) = y
        .servers
        .iter()
        .find(|x| x.server_name.eq_ignore_ascii_case(&name))
    else {
        return Outcome::fail(format!("YStream server {name} does not exist"));
    };
    let ev = format!(
        "{}: {} connect_user {} start_scn {}",
        srv.server_name,
        srv.status,
        srv.connect_user.clone().unwrap_or_else(|| "NULL".into()),
        srv.start_scn
            .map(|s| s.to_string())
            .unwrap_or_else(|| "NULL".into())
    );
    let mut t = Tally::default();
    t.note(ev);
    if let Some(e) = srv.error.as_deref() {
        t.fail(format!("server {name} reports an error: {e}"));
    }
    match srv.status.as_str() {
        "STARTED" => {}
        "RUNNING" => {
            let other = match (srv.connect_user.as_deref(), s.map(|x| x.user.as_str())) {
                (Some(cu), Some(u)) => !cu.eq_ignore_ascii_case(u),
                _ => false,
            };
            if other {
                t.fail(format!(
                    "server {name} is RUNNING for another client: only one client may attach"
                ));
            }
        }
        st => t.fail(format!(
            "server {name} is {st}: start it with DBMS_YSTREAM_ADM.START"
        )),
    }
    if let (Some(cu), Some(sess)) = (srv.connect_user.as_deref(), s) {
        if !cu.eq_ignore_ascii_case(&sess.user) {
            t.fail(format!(
                "server {name} belongs to {cu}, not the connector user {}",
                sess.user
            ));
        }
    }
    t.finish(format!("YStream server {name} is started"))
}

pub fn grants(f: &Facts, _d: &CheckDef) -> Outcome {
    let s = need!(f, session, "session");
    let mut t = Tally::default();
    if !(s.has_role("YSTREAM_CAPTURE") || s.has_privilege("YSTREAM_CAPTURE")) {
        t.fail(format!("{} lacks YSTREAM_CAPTURE", s.user));
    }
    let missing: Vec<&str> = ["CREATE SESSION", "SELECT ANY TABLE", "FLASHBACK ANY TABLE"]
        .into_iter()
        .filter(|p| !s.has_privilege(p))
        .collect();
    if !missing.is_empty() {
        t.fail(format!("{} lacks {}", s.user, missing.join(", ")));
    }
    for (obj, code) in &s.inaccessible_objects {
        t.fail(format!("{obj}: error {code}"));
    }
    t.finish(format!("{} holds the YStream grants", s.user))
}

pub fn startscn_hygiene(f: &Facts, d: &CheckDef) -> Outcome {
    let y = need_ys!(f);
    let max = d.threshold("max_servers", 32.0) as usize;
    let mine = configured_server(f);
    let mut t = Tally::default();
    let stale: Vec<&str> = y
        .servers
        .iter()
        .filter(|s| matches!(s.status.as_str(), "STOPPED" | "CREATED"))
        .filter(|s| mine.is_none_or(|m| !s.server_name.eq_ignore_ascii_case(m)))
        .map(|s| s.server_name.as_str())
        .collect();
    if y.servers.len() >= max {
        t.fail(format!(
            "{} YStream servers exist: the limit is {max}",
            y.servers.len()
        ));
    } else if y.servers.len() + 4 > max {
        t.warn(format!(
            "{} of {max} YStream servers are in use",
            y.servers.len()
        ));
    }
    if !stale.is_empty() {
        t.warn(format!(
            "stale YStream server(s) {} pin archived logs",
            stale.join(", ")
        ));
    }
    t.finish(format!("{} YStream server(s), none stale", y.servers.len()))
}

pub fn types(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need!(f, tables, "tables");
    if tables.is_empty() {
        return Outcome::skip("no table in scope");
    }
    let mut t = Tally::default();
    for tab in tables {
        for c in &tab.columns {
            let udt = c
                .data_type_owner
                .as_deref()
                .is_some_and(|o| o != "SYS" && o != "PUBLIC");
            if matches!(
                c.data_type.as_str(),
                "JSON" | "XMLTYPE" | "ST_GEOMETRY" | "BOX2D"
            ) || udt
            {
                t.fail(format!(
                    "{}.{} is {}: YStream cannot capture it",
                    tab.name, c.name, c.data_type
                ));
            }
        }
        let lob = tab.columns.iter().any(|c| is_lob_like(&c.data_type));
        if lob && tab.primary_key().is_none() {
            t.fail(format!(
                "{}: LOB columns and no primary key: LOB values are lost on UPDATE/DELETE",
                tab.name
            ));
        }
    }
    t.finish("every column can be captured by YStream")
}

pub fn config(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = match f.config.as_ref() {
        Some(c) => c,
        None => return Outcome::skip("no connector config given (--config FILE)"),
    };
    let mut t = Tally::default();
    for p in &c.problems {
        t.fail(p.clone());
    }
    if f.tables.is_some() {
        let (issues, notes) =
            crate::preflight::rules::config::name_case_issues(f, &c.table_names());
        for i in issues {
            t.fail(i);
        }
        for n in notes {
            t.note(n);
        }
    }
    let clear = c.clear_passwords();
    if !clear.is_empty() {
        t.warn(format!(
            "{} holds a password in clear text",
            clear.join(", ")
        ));
    }
    t.finish(format!("{} parses and its tables exist", c.path))
}
