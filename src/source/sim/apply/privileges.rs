//! GRANT, CREATE USER, CREATE PROFILE and ALTER USER: what the capture
//! user is granted lands in the privileges, roles, table grants and profile
//! the session facts read; other users and profiles are kept in
//! [`super::State`]. Common objects need `C##` names in the root.

use super::{ApplyError, Outcome, Profile, Session, User};
use crate::source::TableName;

/// Roles among the names a GRANT lists (the rest are system privileges).
const ROLES: &[&str] = &["DBA", "CONNECT", "RESOURCE", "CDB_DBA", "PDB_DBA"];

/// System privileges Oracle added in 12c: ORA-00990 on 11g.
const SINCE_12C: &[&str] = &["LOGMINING", "SET CONTAINER"];

fn is_role(name: &str) -> bool {
    ROLES.contains(&name) || name.ends_with("_ROLE")
}

fn push_once(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x.eq_ignore_ascii_case(item)) {
        list.push(item.to_string());
    }
}

impl Session<'_> {
    fn capture_user(&self) -> String {
        self.sim.model.scenario.connection.user.to_ascii_uppercase()
    }

    fn is_common_name(name: &str) -> bool {
        name.to_ascii_uppercase().starts_with("C##")
    }

    /// Whether `user` exists where the session is: common users everywhere,
    /// local ones in their container (in a non-CDB, everyone).
    fn user_known(&self, user: &str) -> bool {
        let here = |c: &str| !self.is_cdb() || c.eq_ignore_ascii_case(&self.container);
        if ["SYS", "SYSTEM", "PUBLIC"].contains(&user) {
            return true;
        }
        if user == self.capture_user() {
            return (self.is_cdb() && Self::is_common_name(user)) || here(&self.sim.container);
        }
        if let Some(u) = self.sim.dba.users.get(user) {
            return u.container.as_deref().is_none_or(here);
        }
        let cdb = self.is_cdb();
        self.sim
            .model
            .tables
            .iter()
            .any(|t| t.name.owner == user && t.visible_in(cdb, &self.container))
    }

    /// A grant to the capture user counts in its session when it is
    /// common or made in the container the user is connected to.
    fn reaches_capture(&self, all: bool) -> bool {
        all || !self.is_cdb() || self.container.eq_ignore_ascii_case(&self.sim.container)
    }

    /// `GRANT privs|roles TO user [CONTAINER=ALL]` and
    /// `GRANT privs ON [owner.]object TO user [CONTAINER=ALL]`.
    pub(super) fn grant(&mut self, t: &mut super::Tokens) -> Result<Outcome, ApplyError> {
        t.next();
        let privs = t.list_until(&["ON", "TO"]);
        let object = t.eat("ON").then(|| t.next_table());
        if !t.eat("TO") {
            return Ok(Outcome::NotApplied);
        }
        let grantee = t.next_name();
        let all = self.container_clause(t)?;
        if !t.at_end() {
            return Ok(Outcome::NotApplied);
        }
        if !self.user_known(&grantee) {
            return Err(ApplyError::new(
                1917,
                format!("user or role '{grantee}' does not exist"),
            ));
        }
        match object {
            Some(object) => self.grant_on(&privs, &object, &grantee, all),
            None => self.grant_system(&privs, &grantee, all),
        }
    }

    fn grant_system(
        &mut self,
        privs: &[String],
        grantee: &str,
        all: bool,
    ) -> Result<Outcome, ApplyError> {
        if self.sim.model.version_major < 12 {
            if let Some(p) = privs.iter().find(|p| SINCE_12C.contains(&p.as_str())) {
                return Err(ApplyError::new(
                    990,
                    format!("missing or invalid privilege ({p} exists from 12c)"),
                ));
            }
        }
        if grantee != self.capture_user() {
            if let Some(u) = self.sim.dba.users.get_mut(grantee) {
                u.privileges.extend(privs.iter().cloned());
            }
            return Ok(Outcome::Applied);
        }
        if !self.reaches_capture(all) {
            return Ok(Outcome::Applied);
        }
        for p in privs {
            if is_role(p) {
                push_once(&mut self.sim.roles, p);
            } else {
                push_once(&mut self.sim.privileges, p);
                if let Some(listed) = self.sim.model.scenario.connection.privileges.as_mut() {
                    push_once(listed, p);
                }
            }
        }
        Ok(Outcome::Applied)
    }

    /// Object grants: SYS's packages and views exist in every container;
    /// a table only in its own (ORA-00942 elsewhere, the root included).
    /// A grant on a PDB's table reaches the capture user, which reads the
    /// table from inside that PDB.
    fn grant_on(
        &mut self,
        privs: &[String],
        object: &TableName,
        grantee: &str,
        all: bool,
    ) -> Result<Outcome, ApplyError> {
        let capture = grantee == self.capture_user();
        if object.owner == "SYS" {
            if capture && self.reaches_capture(all) && privs.iter().any(|p| p == "EXECUTE") {
                let name = format!("SYS.{}", object.table);
                push_once(&mut self.sim.model.scenario.connection.execute_on, &name);
            }
            return Ok(Outcome::Applied);
        }
        let cdb = self.is_cdb();
        let container = self.container.clone();
        let Some(table) = self.sim.model.tables.iter_mut().find(|tb| {
            !tb.dropped && same_table(&tb.name, object) && tb.visible_in(cdb, &container)
        }) else {
            return Err(ApplyError::new(
                942,
                format!("table or view does not exist ({object} in {container})"),
            ));
        };
        if capture {
            for p in privs {
                push_once(&mut table.grants, p);
            }
        }
        Ok(Outcome::Applied)
    }

    /// `CREATE USER name IDENTIFIED BY ... [CONTAINER=ALL]`.
    pub(super) fn create_user(&mut self, t: &mut super::Tokens) -> Result<Outcome, ApplyError> {
        t.eat_seq(&["CREATE", "USER"]);
        let name = t.next_name();
        t.skip_until(&["CONTAINER"]);
        let all = self.container_clause(t)?;
        self.check_common_name(&name, 65096, "invalid common user or role name")?;
        if self.user_known(&name) || self.sim.dba.users.contains_key(&name) {
            return Err(ApplyError::new(
                1920,
                format!("user name '{name}' conflicts with another user or role name"),
            ));
        }
        let container = (!all && !self.in_root()).then(|| self.container.clone());
        self.sim.dba.users.insert(
            name,
            User {
                container,
                privileges: Default::default(),
            },
        );
        Ok(Outcome::Applied)
    }

    /// In the root a user or profile is common and needs the `C##` prefix.
    fn check_common_name(&self, name: &str, code: u32, what: &str) -> Result<(), ApplyError> {
        if self.in_root() && !Self::is_common_name(name) {
            return Err(ApplyError::new(
                code,
                format!("{what} ({name} in CDB$ROOT)"),
            ));
        }
        Ok(())
    }

    /// `CREATE PROFILE name LIMIT RESOURCE VALUE ... [CONTAINER=ALL]`.
    pub(super) fn create_profile(&mut self, t: &mut super::Tokens) -> Result<Outcome, ApplyError> {
        t.eat_seq(&["CREATE", "PROFILE"]);
        let name = t.next_name();
        if !t.eat("LIMIT") {
            return Ok(Outcome::NotApplied);
        }
        let mut profile = Profile::default();
        while !t.at_end() && !t.at_word(&["CONTAINER"]) {
            let (Some(k), Some(v)) = (t.next(), t.next()) else {
                return Ok(Outcome::NotApplied);
            };
            profile.limits.insert(k, v);
        }
        let all = self.container_clause(t)?;
        self.check_common_name(&name, 65140, "invalid common profile name")?;
        if name == "DEFAULT" || self.sim.dba.profiles.contains_key(&name) {
            return Err(ApplyError::new(
                2379,
                format!("profile {name} already exists"),
            ));
        }
        profile.container = (!all && !self.in_root()).then(|| self.container.clone());
        self.sim.dba.profiles.insert(name, profile);
        Ok(Outcome::Applied)
    }

    /// `ALTER USER name PROFILE p | QUOTA ... | ACCOUNT UNLOCK [CONTAINER=ALL]`.
    pub(super) fn alter_user(&mut self, t: &mut super::Tokens) -> Result<Outcome, ApplyError> {
        t.eat_seq(&["ALTER", "USER"]);
        let name = t.next_name();
        let what = t.next().unwrap_or_default();
        let arg = t.next_name();
        t.skip_until(&["CONTAINER"]);
        let all = self.container_clause(t)?;
        if !self.user_known(&name) {
            return Err(ApplyError::new(
                1918,
                format!("user '{name}' does not exist"),
            ));
        }
        let capture = name == self.capture_user() && self.reaches_capture(all);
        match what.as_str() {
            "PROFILE" => self.set_profile(&arg, capture),
            "QUOTA" => {
                if capture {
                    self.sim.model.scenario.connection.has_quota = true;
                }
                Ok(Outcome::Applied)
            }
            "ACCOUNT" if arg == "UNLOCK" => {
                if capture {
                    self.sim.model.scenario.connection.account_status = Some("OPEN".into());
                }
                Ok(Outcome::Applied)
            }
            _ => Ok(Outcome::NotApplied),
        }
    }

    /// The profile's limits become the user's; a limit the profile leaves
    /// out is the DEFAULT profile's (PASSWORD_LIFE_TIME 180).
    fn set_profile(&mut self, profile: &str, capture: bool) -> Result<Outcome, ApplyError> {
        let container = self.container.clone();
        let limits = match self.sim.dba.profiles.get(profile) {
            Some(p) if p.container.as_deref().is_none_or(|c| c == container) => p.limits.clone(),
            _ if profile == "DEFAULT" => Default::default(),
            _ => {
                return Err(ApplyError::new(
                    2380,
                    format!("profile {profile} does not exist"),
                ))
            }
        };
        if capture {
            let c = &mut self.sim.model.scenario.connection;
            let limit = |k: &str, default: &str| {
                Some(limits.get(k).cloned().unwrap_or_else(|| default.into()))
            };
            c.profile = Some(profile.to_string());
            c.idle_time = limit("IDLE_TIME", "UNLIMITED");
            c.password_life_time = limit("PASSWORD_LIFE_TIME", "180");
        }
        Ok(Outcome::Applied)
    }
}

/// Names compare as Oracle stores them; an unqualified name is the owner's
/// own (a DBA's script qualifies every table, so any owner matches).
fn same_table(a: &TableName, b: &TableName) -> bool {
    a.table == b.table && (b.owner.is_empty() || a.owner == b.owner)
}
