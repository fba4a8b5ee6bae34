//! Instance-level statements: SHUTDOWN / STARTUP, ALTER DATABASE
//! (ARCHIVELOG, OPEN, supplemental logging, force logging), ALTER SYSTEM
//! SET and log switches, and ALTER TABLESPACE ... RETENTION.

use super::{ApplyError, OpenState, Outcome, Session, Tokens};
use crate::source::sim::scenario::{LogMode, SuppLevel};

/// `13G`, `500M`, `1024` as bytes.
fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim_matches('\'').to_ascii_uppercase();
    let (digits, mult) = match t.chars().last()? {
        'K' => (&t[..t.len() - 1], 1u64 << 10),
        'M' => (&t[..t.len() - 1], 1 << 20),
        'G' => (&t[..t.len() - 1], 1 << 30),
        'T' => (&t[..t.len() - 1], 1 << 40),
        _ => (t.as_str(), 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

impl Session<'_> {
    /// Instance-wide statements are the root's: ORA-65040 from a PDB.
    fn need_root(&self) -> Result<(), ApplyError> {
        if self.is_cdb() && !self.in_root() {
            return Err(ApplyError::new(
                65040,
                "operation not allowed from within a pluggable database",
            ));
        }
        Ok(())
    }

    pub(super) fn shutdown(&mut self) -> Result<Outcome, ApplyError> {
        self.need_root()?;
        if self.sim.dba.open == OpenState::Down {
            return Err(ApplyError::new(1034, "ORACLE not available"));
        }
        self.sim.dba.open = OpenState::Down;
        Ok(Outcome::Applied)
    }

    /// `STARTUP [MOUNT]`: SPFILE-only parameters take effect now.
    pub(super) fn startup(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        if self.sim.dba.open != OpenState::Down {
            return Err(ApplyError::new(
                1081,
                "cannot start already-running ORACLE - shut it down first",
            ));
        }
        t.next();
        let mount = t.eat("MOUNT");
        if !mount && !t.at_end() && !t.eat("OPEN") {
            return Ok(Outcome::NotApplied);
        }
        for (k, v) in std::mem::take(&mut self.sim.dba.spfile) {
            self.set_parameter(&k, &v)?;
        }
        self.sim.dba.open = if mount {
            OpenState::Mounted
        } else {
            OpenState::Open
        };
        if self.is_cdb() {
            self.container = "CDB$ROOT".into();
        }
        Ok(Outcome::Applied)
    }

    pub(super) fn alter_database(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        t.eat_seq(&["ALTER", "DATABASE"]);
        let open = self.sim.dba.open;
        if t.eat("OPEN") {
            if open == OpenState::Open {
                return Err(ApplyError::new(
                    1531,
                    "a database already open by the instance",
                ));
            }
            self.sim.dba.open = OpenState::Open;
            return Ok(Outcome::Applied);
        }
        let on = t.eat("ARCHIVELOG");
        if on || t.eat("NOARCHIVELOG") {
            self.need_root()?;
            if open != OpenState::Mounted {
                return Err(ApplyError::new(
                    1126,
                    "database must be mounted in this instance and not open in any instance",
                ));
            }
            self.sim.model.scenario.instance.log_mode = if on {
                LogMode::Archivelog
            } else {
                LogMode::Noarchivelog
            };
            return Ok(Outcome::Applied);
        }
        if t.eat_seq(&["FORCE", "LOGGING"]) {
            self.need_root()?;
            self.sim.model.scenario.instance.force_logging = true;
            return Ok(Outcome::Applied);
        }
        if t.eat_seq(&["ADD", "SUPPLEMENTAL", "LOG", "DATA"]) {
            return self.add_supplemental(t);
        }
        Ok(Outcome::NotApplied)
    }

    /// `ADD SUPPLEMENTAL LOG DATA [(ALL | PRIMARY KEY) COLUMNS]`: levels
    /// add up, as the V$DATABASE columns do.
    fn add_supplemental(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        self.need_root()?;
        let level = match t.parenthesised() {
            None => SuppLevel::Min,
            Some(cols) => {
                if !t.eat("COLUMNS") {
                    return Ok(Outcome::NotApplied);
                }
                match cols.join(" ").as_str() {
                    "ALL" => SuppLevel::All,
                    "PRIMARY KEY" => SuppLevel::Pk,
                    _ => return Ok(Outcome::NotApplied),
                }
            }
        };
        if !t.at_end() {
            return Ok(Outcome::NotApplied);
        }
        let i = &mut self.sim.model.scenario.instance;
        let rank = |l: SuppLevel| match l {
            SuppLevel::None => 0,
            SuppLevel::Min => 1,
            SuppLevel::Pk => 2,
            SuppLevel::All => 3,
        };
        if rank(level) > rank(i.supplemental_logging) {
            i.supplemental_logging = level;
        }
        Ok(Outcome::Applied)
    }

    /// `ALTER SYSTEM SET name = value [SCOPE=...] [SID='*']`, log switches.
    pub(super) fn alter_system(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        t.eat_seq(&["ALTER", "SYSTEM"]);
        if t.eat_seq(&["SWITCH", "LOGFILE"])
            || t.eat_seq(&["SWITCH", "ALL", "LOGFILE"])
            || t.eat_seq(&["ARCHIVE", "LOG", "CURRENT"])
        {
            self.sim.switch_logs();
            return Ok(Outcome::Applied);
        }
        if !t.eat("SET") {
            return Ok(Outcome::NotApplied);
        }
        let name = t.next_name().to_ascii_lowercase();
        if !t.eat("=") {
            return Ok(Outcome::NotApplied);
        }
        let value = t.next().unwrap_or_default();
        let mut scope = "BOTH".to_string();
        while !t.at_end() {
            if t.eat_seq(&["SCOPE", "="]) {
                scope = t.next().unwrap_or_default();
            } else if t.eat_seq(&["SID", "="]) {
                t.next();
            } else {
                return Ok(Outcome::NotApplied);
            }
        }
        match scope.as_str() {
            "SPFILE" => {
                self.sim.dba.spfile.insert(name, value);
                Ok(Outcome::Applied)
            }
            "MEMORY" | "BOTH" => self.set_parameter(&name, &value),
            _ => Ok(Outcome::NotApplied),
        }
    }

    /// A parameter's running value, where V$PARAMETER's facts read it.
    fn set_parameter(&mut self, name: &str, value: &str) -> Result<Outcome, ApplyError> {
        let i = &mut self.sim.model.scenario.instance;
        let bad = || ApplyError::new(2017, format!("integer value required ({name} = {value})"));
        match name {
            "undo_retention" => i.undo_retention_s = value.parse().map_err(|_| bad())?,
            "db_recovery_file_dest_size" => {
                i.recovery_area_size = parse_size(value).ok_or_else(bad)?
            }
            _ => {
                i.parameters
                    .insert(name.to_string(), value.trim_matches('\'').to_string());
                return Ok(Outcome::Applied);
            }
        }
        // The typed field is what V$PARAMETER shows: no override above it.
        i.parameters.remove(name);
        Ok(Outcome::Applied)
    }

    /// `ALTER TABLESPACE name RETENTION GUARANTEE | NOGUARANTEE` (undo only).
    pub(super) fn alter_tablespace(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        t.eat_seq(&["ALTER", "TABLESPACE"]);
        let name = t.next_name();
        if !t.eat("RETENTION") {
            return Ok(Outcome::NotApplied);
        }
        let guarantee = if t.eat("GUARANTEE") {
            true
        } else if t.eat("NOGUARANTEE") {
            false
        } else {
            return Ok(Outcome::NotApplied);
        };
        let i = &mut self.sim.model.scenario.instance;
        if !name.eq_ignore_ascii_case(&i.undo_tablespace) {
            return Err(ApplyError::new(
                959,
                format!("tablespace '{name}' does not exist (as an undo tablespace)"),
            ));
        }
        i.undo_retention_guarantee = guarantee;
        Ok(Outcome::Applied)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_take_their_unit() {
        assert_eq!(parse_size("13G"), Some(13 << 30));
        assert_eq!(parse_size("500M"), Some(500 << 20));
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("x"), None);
    }
}
