//! Oracle's internal NUMBER bytes, which a row's stored value and the
//! numbers inside OSON documents both use.

/// Oracle's internal NUMBER format: exponent byte then base-100 digits
/// (+1 for positive; 101-d and a trailing 102 for negative).
pub fn oracle_number(text: &str) -> Vec<u8> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    if int.is_empty() && frac.trim_matches('0').is_empty() {
        return vec![0x80];
    }
    // Pad to even-length groups around the decimal point.
    let int_p = if int.len() % 2 == 1 {
        format!("0{int}")
    } else {
        int.to_string()
    };
    let frac_p = if frac.len() % 2 == 1 {
        format!("{frac}0")
    } else {
        frac.to_string()
    };
    let all: Vec<u8> = format!("{int_p}{frac_p}")
        .bytes()
        .map(|b| b.wrapping_sub(b'0'))
        .collect();
    let mut groups: Vec<u8> = all
        .chunks(2)
        .map(|c| c[0] * 10 + c.get(1).copied().unwrap_or(0))
        .collect();
    let mut exp = (int_p.len() / 2) as i32 - 1;
    while groups.first() == Some(&0) {
        groups.remove(0);
        exp -= 1;
    }
    while groups.last() == Some(&0) {
        groups.pop();
    }
    let mut out = Vec::with_capacity(groups.len() + 2);
    if neg {
        out.push((62 - exp) as u8);
        out.extend(groups.iter().map(|g| 101 - g));
        out.push(102);
    } else {
        out.push((exp + 193) as u8);
        out.extend(groups.iter().map(|g| g + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::forms::hex;
    use super::*;

    #[test]
    fn internal_number_bytes_match_oracle() {
        assert_eq!(hex(&oracle_number("1010")), "c20b0b");
        assert_eq!(hex(&oracle_number("101000")), "c30b0b");
        assert_eq!(hex(&oracle_number(".5")), "c033");
        assert_eq!(hex(&oracle_number("0")), "80");
        assert_eq!(hex(&oracle_number("1")), "c102");
        assert_eq!(hex(&oracle_number("-1")), "3e6466");
        assert_eq!(hex(&oracle_number("99.5")), "c16433");
    }
}
