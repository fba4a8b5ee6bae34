//! `--dialect` of `redo parse` and `redo replay`: whose `V$LOGMNR_CONTENTS`
//! an input is. Given, it wins; else a CSV's header tells where it names
//! the rollback flag (DM8's `ROLL_BACK`, Oracle's `ROLLBACK`); else Oracle.

use crate::cli::log;

use cdcctl::engine::contents_csv::{ExportForms, ORACLE_FORMS};
use cdcctl::source::Dialect;

/// The database an export comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RedoDialect {
    /// Oracle's LogMiner.
    Oracle,
    /// Dameng DM8's DBMS_LOGMNR: `ROLL_BACK`, its operation codes (38
    /// XA_COMMIT, 4 BATCH_UPDATE, 37 SEQ MODIFY) and `0x` XIDs.
    Dm,
}

impl RedoDialect {
    pub fn dialect(self) -> Dialect {
        match self {
            RedoDialect::Oracle => Dialect::Oracle,
            RedoDialect::Dm => Dialect::Dm,
        }
    }

    /// How the family's export writes codes, names and XIDs.
    pub fn forms(self) -> ExportForms {
        match self {
            RedoDialect::Oracle => ORACLE_FORMS,
            RedoDialect::Dm => cdcctl::source::dm::export::FORMS,
        }
    }

    fn name(self) -> &'static str {
        match self {
            RedoDialect::Oracle => "Oracle",
            RedoDialect::Dm => "DM8",
        }
    }

    fn of(dialect: Dialect) -> Option<Self> {
        match dialect {
            Dialect::Oracle => Some(RedoDialect::Oracle),
            Dialect::Dm => Some(RedoDialect::Dm),
            Dialect::Yashandb => None,
        }
    }
}

/// The dialect a CSV is read in: `given` wins over what its `header` says,
/// which wins over Oracle. Says so on standard error when the header
/// decided, or when `given` overrules it.
pub fn resolve(command: &str, given: Option<RedoDialect>, header: Option<Dialect>) -> RedoDialect {
    let told = header.and_then(RedoDialect::of);
    let flag = |d: RedoDialect| match d {
        RedoDialect::Oracle => "`ROLLBACK`, Oracle's rollback flag",
        RedoDialect::Dm => "`ROLL_BACK`, DM8's rollback flag",
    };
    match (given, told) {
        (Some(g), Some(t)) if g != t => {
            log::notice(
                command,
                log::Level::Warn,
                &format!(
                    "warning: the CSV's header names {}; reading it as {}'s \
                     V$LOGMNR_CONTENTS, as --dialect says",
                    flag(t),
                    g.name()
                ),
                None,
                &[],
            );
            g
        }
        (Some(g), _) => g,
        (None, Some(RedoDialect::Dm)) => {
            log::notice(
                command,
                log::Level::Info,
                &format!(
                    "reading the CSV as DM8's V$LOGMNR_CONTENTS: its header names {} \
                     (--dialect oracle reads it as Oracle's)",
                    flag(RedoDialect::Dm)
                ),
                None,
                &[],
            );
            RedoDialect::Dm
        }
        (None, _) => RedoDialect::Oracle,
    }
}
