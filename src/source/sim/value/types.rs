//! The column types a scenario may declare (Oracle's and DM8's names), their
//! dictionary facts (`DATA_TYPE`, `DATA_LENGTH`), and the session settings
//! that fix how their values print.

use super::super::charset::Charsets;

/// The fraction part of the mining session's `NLS_TIMESTAMP_FORMAT` and
/// `NLS_TIMESTAMP_TZ_FORMAT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fraction {
    /// `FF9`, as cdcctl's session sets it: always nine digits.
    #[default]
    Ff9,
    /// `FF`: the column's precision in digits, so a TIMESTAMP(0) value
    /// prints an empty fraction (`2020-02-01 00:00:00.`).
    Ff,
}

impl Fraction {
    /// The format strings a scenario may name, for error messages.
    pub const ALLOWED: &'static str =
        "\"YYYY-MM-DD HH24:MI:SS.FF9\" or \"YYYY-MM-DD HH24:MI:SS.FF\"";

    /// The fraction of an `NLS_TIMESTAMP_FORMAT` a scenario names.
    pub fn from_format(format: &str) -> Option<Fraction> {
        match format.trim().to_ascii_uppercase().as_str() {
            "YYYY-MM-DD HH24:MI:SS.FF9" => Some(Fraction::Ff9),
            "YYYY-MM-DD HH24:MI:SS.FF" => Some(Fraction::Ff),
            _ => None,
        }
    }
}

/// The session and database settings a literal's form depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Nls {
    pub fraction: Fraction,
    pub charsets: Charsets,
}

/// A column type the simulator models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColType {
    Number {
        precision: Option<u32>,
        scale: Option<i32>,
    },
    Varchar2(u32),
    NVarchar2(u32),
    Char(u32),
    Date,
    Timestamp(u8),
    TimestampTz(u8),
    Raw(u32),
    Clob,
    Blob,
    /// XMLType stored as CLOB (binary XML prints the same rows).
    XmlType,
    IntervalYm,
    IntervalDs,
    /// Native JSON (21c+), stored as binary OSON.
    Json,
    /// DM8 `INT` (32-bit); values are [`Value::Number`].
    Int,
    /// DM8 `BIGINT`; values are [`Value::Number`].
    BigInt,
    /// DM8 `DOUBLE`; values are [`Value::Double`].
    Double,
    /// DM8 `DATE`: a day without time of day (Oracle's DATE has one).
    DateOnly,
    /// DM8 `TIME` (seconds); values are [`Value::Time`].
    Time,
}

/// The most bytes a VARCHAR2 value LogMiner prints inline may hold: longer
/// values of a `MAX_STRING_SIZE = EXTENDED` database come in 32K pieces.
pub const INLINE_STRING_BYTES: usize = 4000;

/// The type names a scenario may use, for error messages.
pub const ALLOWED_TYPES: &str = "NUMBER, NUMBER(p), NUMBER(p,s), VARCHAR2(n), NVARCHAR2(n), CHAR(n), DATE, \
TIMESTAMP(n), TIMESTAMP(n) WITH TIME ZONE, RAW(n), CLOB, BLOB, XMLTYPE, INTERVAL YEAR TO MONTH, INTERVAL DAY TO SECOND, JSON (21c+)";

fn args(text: &str, prefix: &str) -> Option<Vec<u32>> {
    let rest = text.strip_prefix(prefix)?.trim();
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(',')
        .map(|p| p.trim().parse::<u32>().ok())
        .collect()
}

/// The DM8 type names a scenario may use, for error messages.
pub const ALLOWED_DM_TYPES: &str =
    "INT, BIGINT, DECIMAL(p,s), DOUBLE, VARCHAR(n), CHAR(n), DATE, TIME, \
TIMESTAMP, TIMESTAMP WITH TIME ZONE, BLOB, CLOB";

impl ColType {
    /// Parses a type name of the scenario's dialect.
    pub fn parse_in(text: &str, dialect: crate::source::Dialect) -> Result<ColType, String> {
        match dialect {
            crate::source::Dialect::Dm => ColType::parse_dm(text),
            _ => ColType::parse(text),
        }
    }

    /// Parses a DM8 type name as a scenario writes it.
    pub fn parse_dm(text: &str) -> Result<ColType, String> {
        let t = text.trim().to_ascii_uppercase();
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let bad =
            || format!("`{text}` is not a supported DM8 column type (allowed: {ALLOWED_DM_TYPES})");
        match t.as_str() {
            "INT" | "INTEGER" => return Ok(ColType::Int),
            "BIGINT" => return Ok(ColType::BigInt),
            "DOUBLE" => return Ok(ColType::Double),
            "DATE" => return Ok(ColType::DateOnly),
            "TIME" => return Ok(ColType::Time),
            // DM8's TIMESTAMP defaults to six fraction digits, as printed.
            "TIMESTAMP" => return Ok(ColType::Timestamp(6)),
            "TIMESTAMP WITH TIME ZONE" => return Ok(ColType::TimestampTz(6)),
            "CLOB" | "TEXT" => return Ok(ColType::Clob),
            "BLOB" => return Ok(ColType::Blob),
            _ => {}
        }
        if t.starts_with("DECIMAL") {
            return match args(&t, "DECIMAL").ok_or_else(bad)?.as_slice() {
                [p, s] if (1..=38).contains(p) && s <= p => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(*s as i32),
                }),
                [p] if (1..=38).contains(p) => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(0),
                }),
                _ => Err(bad()),
            };
        }
        let one = |prefix: &str| -> Result<u32, String> {
            match args(&t, prefix).ok_or_else(bad)?.as_slice() {
                [n] if *n > 0 => Ok(*n),
                _ => Err(bad()),
            }
        };
        if t.starts_with("VARCHAR") && !t.starts_with("VARCHAR2") {
            return Ok(ColType::Varchar2(one("VARCHAR")?));
        }
        if t.starts_with("CHAR") {
            return Ok(ColType::Char(one("CHAR")?));
        }
        Err(bad())
    }

    /// A type whose values the simulator can generate keys of in sequence.
    pub fn is_integral_key(&self) -> bool {
        matches!(
            self,
            ColType::Number { .. } | ColType::Int | ColType::BigInt
        )
    }

    /// The type name DM8's `ALL_TAB_COLUMNS.DATA_TYPE` shows.
    pub fn dm_data_type(&self) -> String {
        match self {
            ColType::Number { .. } => "DECIMAL".into(),
            ColType::Varchar2(_) | ColType::NVarchar2(_) => "VARCHAR".into(),
            ColType::Timestamp(_) => "TIMESTAMP".into(),
            ColType::TimestampTz(_) => "TIMESTAMP WITH TIME ZONE".into(),
            ColType::DateOnly | ColType::Date => "DATE".into(),
            ColType::Raw(_) => "VARBINARY".into(),
            other => other.data_type(),
        }
    }

    /// Parses an Oracle type name as a scenario writes it.
    pub fn parse(text: &str) -> Result<ColType, String> {
        let t = text.trim().to_ascii_uppercase();
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let bad = || format!("`{text}` is not a supported column type (allowed: {ALLOWED_TYPES})");
        let one = |prefix: &str, default: Option<u32>| -> Result<u32, String> {
            match args(&t, prefix).ok_or_else(bad)?.as_slice() {
                [n] if *n > 0 => Ok(*n),
                [] => default.ok_or_else(bad),
                _ => Err(bad()),
            }
        };
        if t.starts_with("TIMESTAMP") {
            let (head, tz) = match t.strip_suffix(" WITH TIME ZONE") {
                Some(h) => (h.to_string(), true),
                None => (t.clone(), false),
            };
            let p = match args(&head, "TIMESTAMP").ok_or_else(bad)?.as_slice() {
                [] => 6,
                [n] if *n <= 9 => *n as u8,
                _ => return Err(bad()),
            };
            return Ok(if tz {
                ColType::TimestampTz(p)
            } else {
                ColType::Timestamp(p)
            });
        }
        if t.starts_with("INTERVAL YEAR") && t.ends_with("TO MONTH") {
            return Ok(ColType::IntervalYm);
        }
        if t.starts_with("INTERVAL DAY") && t.contains("TO SECOND") {
            return Ok(ColType::IntervalDs);
        }
        match t.as_str() {
            "DATE" => return Ok(ColType::Date),
            "CLOB" => return Ok(ColType::Clob),
            "BLOB" => return Ok(ColType::Blob),
            "XMLTYPE" | "SYS.XMLTYPE" => return Ok(ColType::XmlType),
            "JSON" => return Ok(ColType::Json),
            _ => {}
        }
        if t.starts_with("NUMBER") {
            return match args(&t, "NUMBER").ok_or_else(bad)?.as_slice() {
                [] => Ok(ColType::Number {
                    precision: None,
                    scale: None,
                }),
                [p] if (1..=38).contains(p) => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(0),
                }),
                [p, s] if (1..=38).contains(p) && s <= p => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(*s as i32),
                }),
                _ => Err(bad()),
            };
        }
        if t.starts_with("NVARCHAR2") {
            return Ok(ColType::NVarchar2(one("NVARCHAR2", None)?));
        }
        if t.starts_with("VARCHAR2") {
            return Ok(ColType::Varchar2(one("VARCHAR2", None)?));
        }
        if t.starts_with("CHAR") {
            return Ok(ColType::Char(one("CHAR", Some(1))?));
        }
        if t.starts_with("RAW") {
            return Ok(ColType::Raw(one("RAW", None)?));
        }
        Err(bad())
    }

    /// `ALL_TAB_COLS.DATA_TYPE`.
    pub fn data_type(&self) -> String {
        match self {
            ColType::Number { .. } => "NUMBER".into(),
            ColType::Varchar2(_) => "VARCHAR2".into(),
            ColType::NVarchar2(_) => "NVARCHAR2".into(),
            ColType::Char(_) => "CHAR".into(),
            ColType::Date => "DATE".into(),
            ColType::Timestamp(p) => format!("TIMESTAMP({p})"),
            ColType::TimestampTz(p) => format!("TIMESTAMP({p}) WITH TIME ZONE"),
            ColType::Raw(_) => "RAW".into(),
            ColType::Clob => "CLOB".into(),
            ColType::Blob => "BLOB".into(),
            ColType::XmlType => "XMLTYPE".into(),
            ColType::IntervalYm => "INTERVAL YEAR(2) TO MONTH".into(),
            ColType::IntervalDs => "INTERVAL DAY(2) TO SECOND(6)".into(),
            ColType::Json => "JSON".into(),
            ColType::Int => "INT".into(),
            ColType::BigInt => "BIGINT".into(),
            ColType::Double => "DOUBLE".into(),
            ColType::DateOnly => "DATE".into(),
            ColType::Time => "TIME".into(),
        }
    }

    /// `DATA_LENGTH` in bytes.
    pub fn data_length(&self) -> u32 {
        match self {
            ColType::Number { .. } => 22,
            ColType::Varchar2(n) | ColType::Char(n) | ColType::Raw(n) => *n,
            ColType::NVarchar2(n) => n * 2,
            ColType::Date => 7,
            ColType::Timestamp(_) => 11,
            ColType::TimestampTz(_) => 13,
            ColType::Clob | ColType::Blob | ColType::XmlType | ColType::Json => 4000,
            ColType::IntervalYm => 5,
            ColType::IntervalDs => 11,
            ColType::Int => 4,
            ColType::BigInt | ColType::Double => 8,
            ColType::DateOnly => 3,
            ColType::Time => 5,
        }
    }

    pub fn is_lob(&self) -> bool {
        matches!(self, ColType::Clob | ColType::Blob)
    }

    /// A column whose value LogMiner never shows in a DML statement: LOBs
    /// (EMPTY_LOB() and LOB rows), XMLType (XML DOC rows) and native JSON
    /// (LOB-stored OSON: `/* JSON */ EMPTY_BLOB()` or its undecoded bytes).
    /// None is ever in a WHERE clause.
    pub fn is_lob_like(&self) -> bool {
        matches!(
            self,
            ColType::Clob | ColType::Blob | ColType::XmlType | ColType::Json
        )
    }

    /// The fraction digits a TIMESTAMP column's values print with under `f`.
    pub(super) fn fraction_digits(&self, f: Fraction) -> usize {
        match (f, self) {
            (Fraction::Ff, ColType::Timestamp(p) | ColType::TimestampTz(p)) => usize::from(*p),
            _ => 9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_parse_and_reject() {
        assert_eq!(
            ColType::parse("number(12,2)").unwrap(),
            ColType::Number {
                precision: Some(12),
                scale: Some(2)
            }
        );
        assert_eq!(
            ColType::parse("TIMESTAMP(6) WITH TIME ZONE").unwrap(),
            ColType::TimestampTz(6)
        );
        assert_eq!(
            ColType::parse("INTERVAL DAY(2) TO SECOND(6)").unwrap(),
            ColType::IntervalDs
        );
        let err = ColType::parse("VARCHAR").unwrap_err();
        assert!(err.contains("allowed: NUMBER"), "{err}");
        assert!(ColType::parse("VARCHAR2").is_err());
    }
}
