//! The key an interrupted chunk resumes after, read back from the output's
//! last snapshot row. The row holds the key in the forms the output was
//! written in (`--binary-handling`, `--decimal-handling`,
//! `--time-precision`), while the next read binds it in the source's own
//! text (`HEXTORAW`, `TO_NUMBER`, `TO_DATE`): each form is turned back, or
//! refused when it lost what the bind needs.

use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use base64::Engine as _;
use chrono::DateTime;

use super::keyorder::KeyKind;
use super::read_forms::read_text_of;
use crate::engine::event::{BinaryHandling, ValueForms};

/// Integers a double holds exactly: beyond 2^53 neighbours share a value.
const EXACT_DOUBLE_LIMIT: f64 = 9_007_199_254_740_992.0;

/// The source's text of one written key value of `kind`, or why it cannot
/// be had back.
pub fn source_text(
    forms: ValueForms,
    kind: KeyKind,
    written: &serde_json::Value,
) -> Result<String, String> {
    match (kind, written) {
        (KeyKind::Number, serde_json::Value::Number(n)) => number_text(n),
        (KeyKind::DateTime, serde_json::Value::Number(n)) => epoch_millis_text(n),
        (KeyKind::DateTime, serde_json::Value::String(s)) => Ok(read_text_of(s)),
        (KeyKind::Binary, serde_json::Value::String(s)) => binary_hex(forms.binary, s),
        (_, serde_json::Value::String(s)) => Ok(s.clone()),
        (_, serde_json::Value::Null) => Err("is NULL".into()),
        (_, other) => Err(format!("is written as {other}, not as a key value")),
    }
}

/// A NUMBER written as a JSON number (`--decimal-handling double`): exact
/// only for integers a double holds.
fn number_text(n: &serde_json::Number) -> Result<String, String> {
    if let Some(i) = n.as_i64() {
        return Ok(i.to_string());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.to_string());
    }
    match n.as_f64() {
        Some(x) if x.fract() == 0.0 && x.abs() < EXACT_DOUBLE_LIMIT => Ok(format!("{x:.0}")),
        _ => Err(format!(
            "is the double {n} (--decimal-handling double), which does not give the NUMBER back \
             exactly"
        )),
    }
}

/// A DATE or TIMESTAMP written as milliseconds since the epoch
/// (`--time-precision connect`), as the read's `YYYY-MM-DD HH24:MI:SS.FF`.
fn epoch_millis_text(n: &serde_json::Number) -> Result<String, String> {
    let t = n
        .as_i64()
        .and_then(DateTime::from_timestamp_millis)
        .ok_or_else(|| format!("is {n}, not milliseconds since the epoch"))?;
    let t = t.naive_utc();
    Ok(if t.and_utc().timestamp_subsec_millis() == 0 {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S%.3f").to_string()
    })
}

/// RAW written as base64 (either alphabet) or hex, as upper-case hex.
fn binary_hex(handling: BinaryHandling, text: &str) -> Result<String, String> {
    let bytes = match handling {
        BinaryHandling::Hex => return Ok(text.to_ascii_uppercase()),
        BinaryHandling::Base64 => STANDARD.decode(text),
        BinaryHandling::Base64UrlSafe => URL_SAFE.decode(text),
    };
    let bytes = bytes.map_err(|e| format!("`{text}` is not the base64 it was written in ({e})"))?;
    Ok(bytes.iter().map(|b| format!("{b:02X}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::{DecimalHandling, TimePrecision};
    use serde_json::json;

    fn forms(binary: BinaryHandling) -> ValueForms {
        ValueForms {
            binary,
            decimal: DecimalHandling::Double,
            time: TimePrecision::Connect,
            ..ValueForms::default()
        }
    }

    #[test]
    fn a_raw_key_written_in_base64_binds_back_as_its_hex_issue33() {
        let guid = "0A1B2C3D4E5F60718293A4B5C6D7E8F9";
        let base64 = "ChssPU5fYHGCk6S1xtfo+Q==";
        let url_safe = "ChssPU5fYHGCk6S1xtfo-Q==";
        let back = |h, t: &str| source_text(forms(h), KeyKind::Binary, &json!(t));
        assert_eq!(back(BinaryHandling::Base64, base64).as_deref(), Ok(guid));
        assert_eq!(
            back(BinaryHandling::Base64UrlSafe, url_safe).as_deref(),
            Ok(guid)
        );
        let hex = guid.to_ascii_lowercase();
        assert_eq!(back(BinaryHandling::Hex, &hex).as_deref(), Ok(guid));
        assert!(back(BinaryHandling::Base64, "not base64!").is_err());
    }

    #[test]
    fn a_number_key_written_as_a_double_binds_back_while_it_is_exact_issue33() {
        let f = forms(BinaryHandling::Base64);
        let back = |v: serde_json::Value| source_text(f, KeyKind::Number, &v);
        assert_eq!(back(json!(1001.0)).as_deref(), Ok("1001"));
        assert_eq!(back(json!(-7)).as_deref(), Ok("-7"));
        assert_eq!(back(json!("1001")).as_deref(), Ok("1001"));
        assert!(back(json!(12.5)).is_err());
        assert!(back(json!(1.0e17)).is_err());
    }

    #[test]
    fn a_date_key_written_as_epoch_millis_binds_back_in_the_reads_form_issue33() {
        let f = forms(BinaryHandling::Base64);
        let back = |v: serde_json::Value| source_text(f, KeyKind::DateTime, &v);
        assert_eq!(
            back(json!(1_743_152_401_000_i64)).as_deref(),
            Ok("2025-03-28 09:00:01")
        );
        assert_eq!(
            back(json!(1_743_152_401_250_i64)).as_deref(),
            Ok("2025-03-28 09:00:01.250")
        );
        assert_eq!(
            back(json!("2025-03-28T09:00:01")).as_deref(),
            Ok("2025-03-28 09:00:01")
        );
        assert!(back(json!(null)).is_err());
    }
}
