//! The `dm://USER@HOST[:PORT][/SCHEMA]` source address.
//!
//! DM8 listens on 5236 by default. The user is kept exactly as written:
//! DM8 compares user names case included. The optional schema becomes the
//! session's current schema (`SET SCHEMA`), so a schema that does not
//! exist is reported at connect. A password is never
//! part of the address: it comes from `CDCCTL_PASSWORD` or the prompt,
//! as for `oracle://`.

use crate::source::address::{self, HostPortError};
use std::fmt;

/// DM8's default port.
pub const DEFAULT_PORT: u16 = 5236;

/// Why a `dm://` address was refused. Like the Oracle address errors, the
/// messages never repeat what follows the user name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DmUrlError {
    #[error("the source is not a dm:// address: write dm://USER@HOST:PORT[/SCHEMA]")]
    Scheme,
    #[error("the dm:// address has no `@`: write dm://USER@HOST:PORT[/SCHEMA]")]
    MissingAt,
    #[error("the address carries a password: remove it and set CDCCTL_PASSWORD or answer the prompt, so it never shows in the process list")]
    PasswordInUrl,
    #[error("the user name is not a valid DM8 user name (letters, digits, _, $, #)")]
    BadUser(String),
    #[error("the host after `@` is not a valid host name or address")]
    BadHost(String),
    #[error("the port after the host is not a number between 1 and 65535")]
    BadPort(String),
    #[error("the schema after the host is not a valid DM8 schema name (letters, digits, _, $, #)")]
    BadSchema(String),
}

/// A parsed `dm://` address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DmSpec {
    pub user: String,
    pub host: String,
    pub port: u16,
    pub schema: Option<String>,
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 128
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '#'))
        && text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

impl DmSpec {
    /// Parses and validates a `dm://` address.
    pub fn parse(url: &str) -> Result<Self, DmUrlError> {
        let rest = url.trim().strip_prefix("dm://").ok_or(DmUrlError::Scheme)?;
        let (userinfo, target) = rest.rsplit_once('@').ok_or(DmUrlError::MissingAt)?;
        let upper = userinfo.to_ascii_uppercase();
        if userinfo.contains([':', '/']) || upper.contains("%3A") || upper.contains("%2F") {
            return Err(DmUrlError::PasswordInUrl);
        }
        if !is_name(userinfo) {
            return Err(DmUrlError::BadUser(userinfo.to_string()));
        }
        let (hostport, schema) = match target.split_once('/') {
            Some((hp, "")) => (hp, None),
            Some((hp, s)) => (hp, Some(s)),
            None => (target, None),
        };
        let schema = match schema {
            Some(s) if is_name(s) => Some(s.to_string()),
            Some(s) => return Err(DmUrlError::BadSchema(s.to_string())),
            None => None,
        };
        let (host, port) = split_host_port(hostport)?;
        Ok(DmSpec {
            user: userinfo.to_string(),
            host,
            port,
            schema,
        })
    }

    /// `host:port` for messages (IPv6 in brackets).
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl fmt::Display for DmSpec {
    /// The address without secrets, for headers and logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dm://{}@{}", self.user, self.address())?;
        if let Some(schema) = &self.schema {
            write!(f, "/{schema}")?;
        }
        Ok(())
    }
}

fn split_host_port(text: &str) -> Result<(String, u16), DmUrlError> {
    address::split_host_port(text, DEFAULT_PORT).map_err(|e| match e {
        HostPortError::BadHost(h) => DmUrlError::BadHost(h),
        HostPortError::BadPort(p) => DmUrlError::BadPort(p),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_host_port_and_schema_parse_and_the_user_keeps_its_case() {
        let s = DmSpec::parse("dm://Cdc_User@db1.example.com:5237/APP").unwrap();
        assert_eq!(
            s,
            DmSpec {
                user: "Cdc_User".into(),
                host: "db1.example.com".into(),
                port: 5237,
                schema: Some("APP".into()),
            }
        );
        assert_eq!(s.to_string(), "dm://Cdc_User@db1.example.com:5237/APP");
    }

    #[test]
    fn port_defaults_to_5236_and_the_schema_is_optional() {
        let s = DmSpec::parse("dm://SYSDBA@localhost").unwrap();
        assert_eq!((s.port, s.schema.as_deref()), (5236, None));
        let s = DmSpec::parse("dm://SYSDBA@localhost:5236/").unwrap();
        assert_eq!(s.schema, None);
        assert_eq!(s.to_string(), "dm://SYSDBA@localhost:5236");
    }

    #[test]
    fn ipv6_hosts_are_bracketed_in_the_address() {
        let s = DmSpec::parse("dm://cdc@[::1]:5236").unwrap();
        assert_eq!(s.host, "::1");
        assert_eq!(s.address(), "[::1]:5236");
    }

    #[test]
    fn bad_addresses_get_the_matching_error_without_echoing_a_password() {
        let cases: &[(&str, DmUrlError)] = &[
            ("oracle://a@b/c", DmUrlError::Scheme),
            ("dm://localhost:5236", DmUrlError::MissingAt),
            ("dm://cdc:secret@localhost", DmUrlError::PasswordInUrl),
            ("dm://cdc/secret@localhost", DmUrlError::PasswordInUrl),
            ("dm://cdc%3Asecret@localhost", DmUrlError::PasswordInUrl),
            ("dm://@localhost", DmUrlError::BadUser(String::new())),
            ("dm://1cdc@localhost", DmUrlError::BadUser("1cdc".into())),
            (
                "dm://cdc@local host",
                DmUrlError::BadHost("local host".into()),
            ),
            ("dm://cdc@localhost:0", DmUrlError::BadPort("0".into())),
            (
                "dm://cdc@localhost:70000",
                DmUrlError::BadPort("70000".into()),
            ),
            (
                "dm://cdc@localhost/A;B",
                DmUrlError::BadSchema("A;B".into()),
            ),
        ];
        for (url, want) in cases {
            assert_eq!(DmSpec::parse(url).as_ref(), Err(want), "{url}");
        }
        let text = DmSpec::parse("dm://cdc:hunter2@localhost")
            .unwrap_err()
            .to_string();
        assert!(!text.contains("hunter2"), "{text}");
    }
}
