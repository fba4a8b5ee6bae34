//! The order of snapshot keys as the database sorts them, for values in
//! either form they reach the engine in: the chunk's canonical text (what
//! the snapshot's `TO_CHAR` returns) or a streamed image's value. The
//! stream gate compares a streamed change's key with the last key a
//! snapshot read, so both forms of one value must compare equal.

use std::cmp::Ordering;

/// How a key column's values are ordered (the session sorts with
/// `NLS_SORT = BINARY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// NUMBER, FLOAT, INTEGER: by numeric value.
    Number,
    /// DATE and TIMESTAMP: by their fields, year first.
    DateTime,
    /// RAW as hex: by bytes.
    Binary,
    /// Character data (and anything else): by bytes of the text.
    Text,
}

/// Orders two key values of one kind; `None` when either cannot be read
/// as that kind (the caller then cannot place the key).
pub fn compare(kind: KeyKind, a: &str, b: &str) -> Option<Ordering> {
    match kind {
        KeyKind::Number => Some(Decimal::parse(a)?.cmp(&Decimal::parse(b)?)),
        KeyKind::DateTime => Some(datetime_fields(a)?.cmp(&datetime_fields(b)?)),
        KeyKind::Binary => Some(a.to_ascii_lowercase().cmp(&b.to_ascii_lowercase())),
        KeyKind::Text => Some(a.as_bytes().cmp(b.as_bytes())),
    }
}

/// Orders two composite keys column by column.
pub fn compare_keys<A: AsRef<str>, B: AsRef<str>>(
    kinds: &[KeyKind],
    a: &[A],
    b: &[B],
) -> Option<Ordering> {
    if a.len() != kinds.len() || b.len() != kinds.len() {
        return None;
    }
    for ((kind, x), y) in kinds.iter().zip(a).zip(b) {
        match compare(*kind, x.as_ref(), y.as_ref())? {
            Ordering::Equal => {}
            other => return Some(other),
        }
    }
    Some(Ordering::Equal)
}

/// A decimal as sign, magnitude class and significant digits: `-0.50`,
/// `-.5` and `-5E-1` are one value.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    /// Position of the first significant digit relative to the point
    /// (1 for `5`, 0 for `.5`); `None` for zero.
    exponent: Option<i64>,
    /// Significant digits, no trailing zeros.
    digits: Vec<u8>,
}

impl Decimal {
    fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        let (negative, t) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (mantissa, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
            None => (t, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let all: Vec<u8> = int.bytes().chain(frac.bytes()).map(|c| c - b'0').collect();
        let Some(first) = all.iter().position(|&d| d != 0) else {
            return Some(Self {
                negative: false,
                exponent: None,
                digits: Vec::new(),
            });
        };
        let last = all.iter().rposition(|&d| d != 0).unwrap_or(first);
        let int_len = i64::try_from(int.len()).ok()?;
        let first_at = i64::try_from(first).ok()?;
        Some(Self {
            negative,
            exponent: Some(int_len - first_at + exp),
            digits: all[first..=last].to_vec(),
        })
    }

    fn magnitude_cmp(&self, other: &Self) -> Ordering {
        match (self.exponent, other.exponent) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => a.cmp(&b).then_with(|| self.digits.cmp(&other.digits)),
        }
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |d: &Self| match (d.exponent, d.negative) {
            (None, _) => 0,
            (Some(_), true) => -1,
            (Some(_), false) => 1,
        };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal if sign(self) < 0 => other.magnitude_cmp(self),
            Ordering::Equal => self.magnitude_cmp(other),
            unequal => unequal,
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Year, month, day, hour, minute, second and the fraction's digits
/// (padded to nanoseconds) of `2024-01-31 23:59:59.5` or
/// `2024-01-31T23:59:59.500Z`; missing time fields are zero.
fn datetime_fields(text: &str) -> Option<[u64; 7]> {
    let t = text.trim();
    let (negative_year, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    if negative_year {
        // BC dates sort before every AD date; none is a realistic key.
        return None;
    }
    let mut fields = [0u64; 7];
    let mut groups = t
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty());
    for (i, slot) in fields.iter_mut().enumerate().take(6) {
        match groups.next() {
            Some(g) => *slot = g.parse().ok()?,
            None if i >= 3 => return Some(fields),
            None => return None,
        }
    }
    if let Some(frac) = groups.next() {
        let padded: String = frac.chars().chain(std::iter::repeat('0')).take(9).collect();
        fields[6] = padded.parse().ok()?;
    }
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_order_by_value_whatever_their_spelling() {
        let ordered = [
            "-1E3", "-12.5", "-2", "-.5", "0", "0.000", ".5", "0.50001", "1", "2", "10", "1.2E1",
            "99", "100",
        ];
        for w in ordered.windows(2) {
            let o = compare(KeyKind::Number, w[0], w[1]);
            assert!(
                matches!(o, Some(Ordering::Less | Ordering::Equal)),
                "{} then {}: {o:?}",
                w[0],
                w[1]
            );
        }
        assert_eq!(
            compare(KeyKind::Number, "0.5", ".50"),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(KeyKind::Number, "-0", "0"), Some(Ordering::Equal));
        assert_eq!(compare(KeyKind::Number, "10", "9"), Some(Ordering::Greater));
        assert_eq!(compare(KeyKind::Number, "abc", "9"), None);
    }

    #[test]
    fn a_snapshot_date_and_the_streamed_iso_form_of_it_are_equal() {
        assert_eq!(
            compare(
                KeyKind::DateTime,
                "2024-01-31 23:59:59",
                "2024-01-31T23:59:59Z"
            ),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(
                KeyKind::DateTime,
                "2024-01-31 23:59:59.500000000",
                "2024-01-31T23:59:59.5"
            ),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(KeyKind::DateTime, "2024-02-01", "2024-01-31T23:59:59"),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn composite_keys_order_by_their_first_differing_column() {
        let kinds = [KeyKind::Text, KeyKind::Number];
        assert_eq!(
            compare_keys(&kinds, &["A", "10"], &["A", "9"]),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare_keys(&kinds, &["A", "10"], &["B", "1"]),
            Some(Ordering::Less)
        );
        assert_eq!(compare_keys(&kinds, &["A"], &["B", "1"]), None);
    }

    #[test]
    fn raw_keys_order_by_bytes_in_either_case_of_hex() {
        assert_eq!(
            compare(KeyKind::Binary, "0A1B", "0a1b"),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(KeyKind::Binary, "0a", "0a00"), Some(Ordering::Less));
    }
}
