//! YashanDB live (`--source yashandb://USER@HOST:PORT`): the catalog read
//! through the vendor's ODBC driver. No YashanDB driver exists in any Rust
//! registry; ODBC needs only the driver manager (unixODBC) and YashanDB's
//! driver at run time, like Instant Client for Oracle.
//!
//! The ODBC part is the cargo feature `yashandb-odbc`, off by default:
//! `odbc-sys` links libodbc.so.2 when the binary loads (it cannot load it
//! later), and a cdcctl that Oracle and simulator users run must start
//! without unixODBC. [`read`] runs the named statements its caller passes
//! and returns their rows as an evidence file, so a live run and a
//! `collect --dialect yashandb` file become facts by one mapping; which
//! statements to run is the check catalog's business
//! (`preflight::yashandb_live`).

use crate::source::SourceError;

/// YashanDB's listener port when the address names none.
pub const DEFAULT_PORT: u16 = 1688;

/// The driver name the connection string asks for, unless
/// `CDCCTL_YASHANDB_ODBC_DRIVER` names another (as odbcinst.ini spells it).
pub const DEFAULT_DRIVER: &str = "YashanDB";

/// What to do when the feature is missing, in one sentence.
pub const BUILD_ADVICE: &str = "this cdcctl was built without YashanDB support: install unixODBC \
     (apt-get install unixodbc-dev) and build with `cargo build --release --features yashandb-odbc`; \
     YashanDB's ODBC driver comes from YashanDB's downloads";

/// What to do when the driver manager has no YashanDB driver.
pub const DRIVER_ADVICE: &str =
    "install YashanDB's ODBC driver (from YashanDB's downloads) and register it in \
     odbcinst.ini as [YashanDB], or name its section with CDCCTL_YASHANDB_ODBC_DRIVER";

/// A parsed `yashandb://USER@HOST:PORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YashanUrl {
    pub user: String,
    pub host: String,
    pub port: u16,
}

impl YashanUrl {
    /// Reads the URL; a password in it is refused (never argv).
    pub fn parse(url: &str) -> Result<Self, SourceError> {
        let bad = |why: &str| {
            SourceError::Invalid(format!(
                "--source {}: {why}; write yashandb://USER@HOST:PORT and put the password in CDCCTL_PASSWORD",
                url.split_once('@').map_or(url, |(_, h)| h)
            ))
        };
        let rest = url
            .strip_prefix("yashandb://")
            .ok_or_else(|| bad("not a yashandb:// URL"))?;
        let (user, hostport) = rest.rsplit_once('@').ok_or_else(|| bad("no USER@"))?;
        if user.contains(':') || user.contains('/') {
            return Err(bad("a password does not belong in the URL"));
        }
        if user.is_empty() {
            return Err(bad("no user"));
        }
        let (host, port) = crate::source::address::split_host_port(hostport, DEFAULT_PORT)
            .map_err(|e| match e {
                crate::source::address::HostPortError::BadHost(_) => {
                    bad("the host is not a valid host name or address")
                }
                crate::source::address::HostPortError::BadPort(_) => {
                    bad("the port is not a number between 1 and 65535")
                }
            })?;
        Ok(YashanUrl {
            user: user.to_string(),
            host,
            port,
        })
    }

    /// The ODBC connection string, with `{}` around values ODBC would
    /// otherwise split at `;`.
    pub fn connection_string(&self, driver: &str, password: &str) -> String {
        let braced = |v: &str| format!("{{{}}}", v.replace('}', "}}"));
        format!(
            "Driver={};Server={};Port={};UID={};PWD={};",
            braced(driver),
            self.host,
            self.port,
            braced(&self.user),
            braced(password)
        )
    }
}

/// Sorts an ODBC error: the driver manager's own errors (no driver, no
/// data source) mean the client side is missing, not the database.
pub fn classify(message: &str) -> SourceError {
    let client_side = [
        "IM002",
        "IM003",
        "Can't open lib",
        "Data source name not found",
    ]
    .iter()
    .any(|m| message.contains(m));
    if client_side {
        SourceError::NoClientLibrary(message.to_string())
    } else {
        SourceError::Unreachable(message.to_string())
    }
}

#[cfg(feature = "yashandb-odbc")]
pub use odbc::read;

#[cfg(feature = "yashandb-odbc")]
mod odbc {
    use std::collections::BTreeMap;

    use odbc_api::buffers::TextRowSet;
    use odbc_api::{ConnectionOptions, Cursor, Environment, ResultSetMetadata};
    use serde_json::Value;

    use super::{classify, YashanUrl, DEFAULT_DRIVER};
    use crate::source::evidence::{EvidenceFile, QueryRows, Row, FORMAT, VERSION};
    use crate::source::oracle::Password;
    use crate::source::{Dialect, SourceError};

    fn rows(conn: &odbc_api::Connection<'_>, sql: &str) -> Result<Vec<Row>, String> {
        let Some(mut cursor) = conn.execute(sql, (), None).map_err(|e| e.to_string())? else {
            return Ok(Vec::new());
        };
        let names: Vec<String> = cursor
            .column_names()
            .map_err(|e| e.to_string())?
            .map(|n| n.map(|n| n.to_ascii_uppercase()))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let mut buffers =
            TextRowSet::for_cursor(256, &mut cursor, Some(4096)).map_err(|e| e.to_string())?;
        let mut bound = cursor
            .bind_buffer(&mut buffers)
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        while let Some(batch) = bound.fetch().map_err(|e| e.to_string())? {
            for r in 0..batch.num_rows() {
                let mut row: Row = BTreeMap::new();
                for (c, name) in names.iter().enumerate() {
                    let v = batch
                        .at_as_str(c, r)
                        .map_err(|e| format!("column {name} is not UTF-8: {e}"))?;
                    row.insert(
                        name.clone(),
                        v.map_or(Value::Null, |s| Value::String(s.to_string())),
                    );
                }
                out.push(row);
            }
        }
        Ok(out)
    }

    /// Connects and runs each `(name, sql)` statement once: a statement
    /// the database refuses becomes that name's `{"error": ...}` entry, not
    /// a failed read.
    pub fn read(
        url: &str,
        password: &Password,
        statements: &[(String, String)],
    ) -> Result<EvidenceFile, SourceError> {
        let parsed = YashanUrl::parse(url)?;
        let driver = std::env::var("CDCCTL_YASHANDB_ODBC_DRIVER")
            .unwrap_or_else(|_| DEFAULT_DRIVER.to_string());
        let env = Environment::new().map_err(|e| classify(&e.to_string()))?;
        let conn = env
            .connect_with_connection_string(
                &parsed.connection_string(&driver, password.expose()),
                ConnectionOptions::default(),
            )
            .map_err(|e| classify(&e.to_string()))?;
        let mut q = BTreeMap::new();
        for (name, sql) in statements {
            let result = match rows(&conn, sql) {
                Ok(r) => QueryRows::Rows(r),
                Err(error) => QueryRows::Error { error },
            };
            q.insert(name.clone(), result);
        }
        let collected_at = rows(
            &conn,
            "SELECT to_char(sysdate, 'YYYY-MM-DD HH24:MI:SS') AS now FROM dual",
        )
        .ok()
        .and_then(|r| r.first().and_then(|r| r.get("NOW")).cloned())
        .and_then(|v| v.as_str().map(str::to_string));
        Ok(EvidenceFile {
            format: FORMAT.to_string(),
            version: VERSION,
            collected_at,
            dialect: Dialect::Yashandb,
            source: Some(format!(
                "yashandb://{}@{}:{}",
                parsed.user, parsed.host, parsed.port
            )),
            queries: q,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_user_host_and_port_and_never_a_password() {
        assert_eq!(
            YashanUrl::parse("yashandb://cdc@db:1688").unwrap(),
            YashanUrl {
                user: "cdc".into(),
                host: "db".into(),
                port: 1688
            }
        );
        assert_eq!(YashanUrl::parse("yashandb://cdc@db").unwrap().port, 1688);
        let e = YashanUrl::parse("yashandb://cdc:secret@db:1688").unwrap_err();
        assert!(!e.to_string().contains("secret"), "{e}");
        assert!(YashanUrl::parse("yashandb://db:1688").is_err());
        assert!(YashanUrl::parse("yashandb://cdc@db:port").is_err());
    }

    #[test]
    fn connection_strings_brace_values_that_could_split_them() {
        let u = YashanUrl::parse("yashandb://cdc@db:1688").unwrap();
        assert_eq!(
            u.connection_string("YashanDB", "p;w}d"),
            "Driver={YashanDB};Server=db;Port=1688;UID={cdc};PWD={p;w}}d};"
        );
    }

    #[test]
    fn driver_manager_errors_without_a_driver_are_a_missing_client() {
        let no_dsn = "ODBC emitted an error calling 'SQLDriverConnect': State: IM002, Native error: 0, \
                      Message: [unixODBC][Driver Manager]Data source name not found and no default driver specified";
        assert!(matches!(classify(no_dsn), SourceError::NoClientLibrary(_)));
        let no_lib = "State: 01000, Native error: 0, Message: [unixODBC][Driver Manager]Can't open lib 'YashanDB' : file not found";
        assert!(matches!(classify(no_lib), SourceError::NoClientLibrary(_)));
        assert!(matches!(
            classify("State: 08001, Message: connection refused"),
            SourceError::Unreachable(_)
        ));
    }
}
