//! The host and port of a database address (`HOST`, `HOST:PORT`,
//! `[IPv6]:PORT`), read the same way for `oracle://`, `dm://` and
//! `yashandb://` sources.

/// Why the host or port part of an address is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPortError {
    BadHost(String),
    BadPort(String),
}

/// Splits `HOST[:PORT]` or `[IPv6][:PORT]`; a missing port is
/// `default_port`, and port 0 is refused.
pub fn split_host_port(text: &str, default_port: u16) -> Result<(String, u16), HostPortError> {
    let (host, port) = if let Some(inner) = text.strip_prefix('[') {
        // [IPv6]:port
        let (addr, after) = inner
            .split_once(']')
            .ok_or_else(|| HostPortError::BadHost(text.to_string()))?;
        let ok = !addr.is_empty() && addr.chars().all(|c| c.is_ascii_hexdigit() || c == ':');
        if !ok {
            return Err(HostPortError::BadHost(text.to_string()));
        }
        let port = match after {
            "" => None,
            p => Some(
                p.strip_prefix(':')
                    .ok_or_else(|| HostPortError::BadHost(text.to_string()))?,
            ),
        };
        (addr.to_string(), port)
    } else {
        let (h, p) = match text.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (text, None),
        };
        let ok = !h.is_empty()
            && h.len() <= 253
            && h.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            && !h.starts_with('-');
        if !ok {
            return Err(HostPortError::BadHost(h.to_string()));
        }
        (h.to_string(), p)
    };
    let port = match port {
        None => default_port,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => n,
            _ => return Err(HostPortError::BadPort(p.to_string())),
        },
    };
    Ok((host, port))
}
