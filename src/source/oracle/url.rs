//! The `oracle://` source address and the credentials that go with it.
//!
//! Accepted forms:
//! - `oracle://USER@HOST[:PORT]/SERVICE` (port 1521 by default),
//! - `oracle://USER@//HOST[:PORT]/SERVICE` (EZConnect as Oracle writes it),
//! - `oracle://USER@ALIAS` (a tnsnames.ora alias),
//! - `oracle://@ALIAS` or `oracle://@HOST/SERVICE` (no user: external
//!   authentication through an Oracle wallet).
//!
//! A password is never part of the address: it comes from `CDCCTL_PASSWORD`,
//! a prompt the CLI shows, or the wallet.

use crate::source::address::{self, HostPortError};
use std::fmt;

/// The environment variable a password is read from.
pub const PASSWORD_ENV: &str = "CDCCTL_PASSWORD";

/// Oracle's default listener port.
pub const DEFAULT_PORT: u16 = 1521;

/// Why an `oracle://` address was refused. The messages never repeat what
/// follows the user name (nor a user name that is not one): a password
/// typed in the wrong place must not reach a terminal or a log. The
/// payloads are for tests and callers that know what they hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("the source is not an oracle:// address: write oracle://USER@HOST:PORT/SERVICE, oracle://USER@ALIAS or oracle://@ALIAS for a wallet")]
    Scheme(String),
    #[error("the oracle:// address has no `@`: write oracle://USER@HOST:PORT/SERVICE (or oracle://@ALIAS for a wallet)")]
    MissingAt(String),
    #[error("the address carries a password: remove it and set CDCCTL_PASSWORD or answer the prompt, so it never shows in the process list")]
    PasswordInUrl,
    #[error("the address is in the SQL*Plus form USER/PASSWORD@HOST: write oracle://USER@HOST:PORT/SERVICE and put the password in CDCCTL_PASSWORD (or answer the prompt)")]
    SqlPlusForm,
    #[error("the user name is not a valid Oracle user name (letters, digits, _, $, #; C## prefix for common users)")]
    BadUser(String),
    #[error("the host after `@` is not a valid host name or address")]
    BadHost(String),
    #[error("the port after the host is not a number between 1 and 65535")]
    BadPort(String),
    #[error("the service name after the host is not valid (letters, digits, ., _, -, $, #; no `?` options)")]
    BadService(String),
    #[error("the address names a host but no service: write oracle://USER@HOST:1521/SERVICE")]
    MissingService(String),
    #[error("the tnsnames.ora alias after `@` is not valid (letters, digits, ., _, -)")]
    BadAlias(String),
}

/// Whether `text` looks like SQL*Plus's `user/password@host` connect form.
pub fn is_sqlplus_form(text: &str) -> bool {
    text.split_once('@').is_some_and(|(who, _)| {
        who.split_once('/')
            .is_some_and(|(u, p)| !u.is_empty() && !p.is_empty() && !u.contains(':'))
    })
}

/// Where to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Host, port and service name (EZConnect).
    EzConnect {
        host: String,
        port: u16,
        service: String,
    },
    /// A net service name resolved through tnsnames.ora (or LDAP).
    TnsAlias(String),
}

/// A parsed `oracle://` address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectSpec {
    /// `None` means external authentication (wallet).
    pub user: Option<String>,
    pub target: Target,
}

impl ConnectSpec {
    /// Parses and validates an `oracle://` address.
    pub fn parse(url: &str) -> Result<Self, UrlError> {
        let rest = url
            .trim()
            .strip_prefix("oracle://")
            .ok_or_else(|| UrlError::Scheme(url.to_string()))?;
        let (userinfo, target) = rest
            .rsplit_once('@')
            .ok_or_else(|| UrlError::MissingAt(url.to_string()))?;
        if userinfo.contains('/') && !userinfo.starts_with('/') {
            return Err(UrlError::SqlPlusForm);
        }
        if userinfo.contains(':') || userinfo.contains('/') || decoded_separator(userinfo) {
            return Err(UrlError::PasswordInUrl);
        }
        let user = if userinfo.is_empty() {
            None
        } else {
            Some(parse_user(userinfo)?)
        };
        let target = parse_target(target)?;
        Ok(ConnectSpec { user, target })
    }

    /// The connect string handed to the Oracle client.
    pub fn connect_string(&self) -> String {
        match &self.target {
            Target::EzConnect {
                host,
                port,
                service,
            } => {
                if host.contains(':') {
                    format!("//[{host}]:{port}/{service}")
                } else {
                    format!("//{host}:{port}/{service}")
                }
            }
            Target::TnsAlias(alias) => alias.clone(),
        }
    }

    /// Uses external authentication (an Oracle wallet) rather than a password.
    pub fn uses_wallet(&self) -> bool {
        self.user.is_none()
    }
}

impl fmt::Display for ConnectSpec {
    /// The address without secrets, for headers and logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let user = self.user.as_deref().unwrap_or("");
        match &self.target {
            Target::EzConnect { .. } => {
                let cs = self.connect_string();
                write!(f, "oracle://{user}@{}", cs.trim_start_matches("//"))
            }
            Target::TnsAlias(alias) => write!(f, "oracle://{user}@{alias}"),
        }
    }
}

/// `%3A` or `%2F` in the user part: a `:` or `/` (and what follows, a
/// password) percent-encoded.
fn decoded_separator(userinfo: &str) -> bool {
    let upper = userinfo.to_ascii_uppercase();
    upper.contains("%3A") || upper.contains("%2F")
}

fn parse_user(text: &str) -> Result<String, UrlError> {
    let ok = !text.is_empty()
        && text.len() <= 128
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '#'))
        && text.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    if ok {
        // Unquoted Oracle user names are stored upper-case.
        Ok(text.to_ascii_uppercase())
    } else {
        Err(UrlError::BadUser(text.to_string()))
    }
}

fn parse_target(text: &str) -> Result<Target, UrlError> {
    let explicit_ez = text.starts_with("//");
    let body = text.trim_start_matches("//");
    if !explicit_ez && !body.contains('/') && !body.contains(':') {
        return parse_alias(body);
    }
    let (hostport, service) = match body.split_once('/') {
        Some((hp, svc)) => (hp, svc),
        None => (body, ""),
    };
    let (host, port) = split_host_port(hostport)?;
    if service.is_empty() {
        return Err(UrlError::MissingService(host));
    }
    let service_ok = service.len() <= 128
        && service
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$' | '#'));
    if !service_ok {
        return Err(UrlError::BadService(service.to_string()));
    }
    Ok(Target::EzConnect {
        host,
        port,
        service: service.to_string(),
    })
}

fn parse_alias(text: &str) -> Result<Target, UrlError> {
    let ok = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(Target::TnsAlias(text.to_string()))
    } else {
        Err(UrlError::BadAlias(text.to_string()))
    }
}

fn split_host_port(text: &str) -> Result<(String, u16), UrlError> {
    address::split_host_port(text, DEFAULT_PORT).map_err(|e| match e {
        HostPortError::BadHost(h) => UrlError::BadHost(h),
        HostPortError::BadPort(p) => UrlError::BadPort(p),
    })
}

/// A password held in memory only; its `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    pub fn new(secret: impl Into<String>) -> Self {
        Password(secret.into())
    }

    /// Reads `CDCCTL_PASSWORD`; `None` when unset or empty.
    pub fn from_env() -> Option<Self> {
        std::env::var(PASSWORD_ENV)
            .ok()
            .filter(|p| !p.is_empty())
            .map(Password)
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ez(host: &str, port: u16, service: &str) -> Target {
        Target::EzConnect {
            host: host.into(),
            port,
            service: service.into(),
        }
    }

    #[test]
    fn host_port_service_parses_and_upper_cases_the_user() {
        let s = ConnectSpec::parse("oracle://c##cdcctl@db1.example.com:1522/ORCLCDB").unwrap();
        assert_eq!(s.user.as_deref(), Some("C##CDCCTL"));
        assert_eq!(s.target, ez("db1.example.com", 1522, "ORCLCDB"));
        assert_eq!(s.connect_string(), "//db1.example.com:1522/ORCLCDB");
    }

    #[test]
    fn port_defaults_to_1521() {
        let s = ConnectSpec::parse("oracle://app@localhost/FREEPDB1").unwrap();
        assert_eq!(s.target, ez("localhost", 1521, "FREEPDB1"));
    }

    #[test]
    fn ezconnect_with_double_slash_parses_like_the_plain_form() {
        let a = ConnectSpec::parse("oracle://app@//localhost:1521/FREE").unwrap();
        let b = ConnectSpec::parse("oracle://app@localhost:1521/FREE").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn bare_name_is_a_tns_alias() {
        let s = ConnectSpec::parse("oracle://cdc@PROD_DG.world").unwrap();
        assert_eq!(s.target, Target::TnsAlias("PROD_DG.world".into()));
        assert_eq!(s.connect_string(), "PROD_DG.world");
    }

    #[test]
    fn empty_user_means_wallet() {
        let s = ConnectSpec::parse("oracle://@PRODW").unwrap();
        assert!(s.uses_wallet());
        assert_eq!(s.to_string(), "oracle://@PRODW");
    }

    #[test]
    fn ipv6_host_keeps_its_brackets_in_the_connect_string() {
        let s = ConnectSpec::parse("oracle://app@[::1]:1521/FREE").unwrap();
        assert_eq!(s.target, ez("::1", 1521, "FREE"));
        assert_eq!(s.connect_string(), "//[::1]:1521/FREE");
    }

    #[test]
    fn display_never_shows_more_than_user_and_target() {
        let s = ConnectSpec::parse("oracle://app@localhost/FREE").unwrap();
        assert_eq!(s.to_string(), "oracle://APP@localhost:1521/FREE");
    }

    #[test]
    fn bad_addresses_get_the_matching_error() {
        let cases: &[(&str, UrlError)] = &[
            (
                "postgres://a@b/c",
                UrlError::Scheme("postgres://a@b/c".into()),
            ),
            (
                "oracle://localhost/FREE",
                UrlError::MissingAt("oracle://localhost/FREE".into()),
            ),
            (
                "oracle://app:secret@localhost/FREE",
                UrlError::PasswordInUrl,
            ),
            ("oracle://app/secret@localhost/FREE", UrlError::SqlPlusForm),
            (
                "oracle://app%3Asecret@localhost/FREE",
                UrlError::PasswordInUrl,
            ),
            (
                "oracle://1app@localhost/FREE",
                UrlError::BadUser("1app".into()),
            ),
            (
                "oracle://a-b@localhost/FREE",
                UrlError::BadUser("a-b".into()),
            ),
            (
                "oracle://app@local host/FREE",
                UrlError::BadHost("local host".into()),
            ),
            (
                "oracle://app@localhost:0/FREE",
                UrlError::BadPort("0".into()),
            ),
            (
                "oracle://app@localhost:99999/FREE",
                UrlError::BadPort("99999".into()),
            ),
            (
                "oracle://app@localhost:x/FREE",
                UrlError::BadPort("x".into()),
            ),
            (
                "oracle://app@localhost:1521",
                UrlError::MissingService("localhost".into()),
            ),
            (
                "oracle://app@localhost/FR EE",
                UrlError::BadService("FR EE".into()),
            ),
            (
                "oracle://app@localhost/FREE;DROP",
                UrlError::BadService("FREE;DROP".into()),
            ),
            ("oracle://app@", UrlError::BadAlias(String::new())),
            ("oracle://app@al'ias", UrlError::BadAlias("al'ias".into())),
        ];
        for (url, want) in cases {
            assert_eq!(ConnectSpec::parse(url).as_ref(), Err(want), "{url}");
        }
    }

    #[test]
    fn password_debug_is_redacted() {
        let p = Password::new("tiger");
        assert_eq!(format!("{p:?}"), "Password(***)");
        assert_eq!(p.expose(), "tiger");
    }
}
