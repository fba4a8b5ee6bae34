//! Hex text and the bytes it spells: how RAW and BLOB values are held
//! ([`Field::Binary`](super::Field::Binary)) and read back, sixteen digits
//! at a time.

/// The bytes hex digits spell; a pair that is not two hex digits is
/// skipped, as is an odd last digit.
pub(super) fn hex_bytes(hex: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    push_hex_pairs(hex.as_bytes(), &mut bytes);
    bytes
}

/// Appends the bytes the whole pairs of hex digits (either case) of `hex`
/// spell, skipping a pair that is not two digits and an odd last digit;
/// false when a pair was skipped. Sixteen digits at a time (BLOB values
/// and LOB pieces carry thousands), a block holding a non-digit and the
/// digits after the last block pair by pair.
fn push_hex_pairs(hex: &[u8], out: &mut Vec<u8>) -> bool {
    use crate::engine::block::{self, BLOCK};
    let mut whole = true;
    let mut blocks = hex.chunks_exact(BLOCK);
    for chunk in &mut blocks {
        let Ok(chunk) = <&[u8; BLOCK]>::try_from(chunk) else {
            return false;
        };
        match block::hex_pairs(chunk) {
            (pairs, true) => out.extend_from_slice(&pairs),
            _ => whole &= push_hex_pairs_one_by_one(chunk, out),
        }
    }
    push_hex_pairs_one_by_one(blocks.remainder(), out) && whole
}

/// [`push_hex_pairs`] a pair at a time, through the digit table.
fn push_hex_pairs_one_by_one(hex: &[u8], out: &mut Vec<u8>) -> bool {
    let mut whole = true;
    out.extend(hex.chunks_exact(2).filter_map(|p| {
        let (hi, lo) = (HEX_DIGIT[usize::from(p[0])], HEX_DIGIT[usize::from(p[1])]);
        let digits = (hi | lo) & 0x80 == 0;
        whole &= digits;
        digits.then_some(hi << 4 | lo)
    }));
    whole
}

/// Each byte's value as a hex digit, or 0xff.
static HEX_DIGIT: [u8; 256] = {
    let mut t = [0xff; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The bytes whole pairs of hex digits (either case) spell; `None` for
/// an odd count or a character that is not a hex digit.
pub(crate) fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    push_hex_pairs(hex.as_bytes(), &mut bytes).then_some(bytes)
}

/// Lower-case hex of bytes: how RAW and BLOB values are held
/// ([`Field::Binary`]), whichever source read them.
pub fn hex_lower(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        hex.push(char::from(DIGITS[usize::from(b >> 4)]));
        hex.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex_lower(&[0x0a, 0xff, 0x00]), "0aff00");
    }

    /// Mostly hex digits of either case, now and then another ASCII byte,
    /// up to five blocks and an odd length now and then.
    fn hex_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        proptest::collection::vec(
            prop_oneof![
                30 => proptest::sample::select(b"0123456789abcdefABCDEF".to_vec()),
                1 => any::<u8>().prop_map(|b| b & 0x7f),
            ],
            0..80,
        )
        .prop_map(|text| text.iter().map(|&b| char::from(b)).collect())
    }

    /// Each whole pair read as two digits, `None` for one that is not.
    fn pairs_one_by_one(hex: &str) -> Vec<Option<u8>> {
        let d = |h: u8| char::from(h).to_digit(16);
        hex.as_bytes()
            .chunks_exact(2)
            .map(|p| Some((d(p[0])? << 4 | d(p[1])?) as u8))
            .collect()
    }

    proptest::proptest! {
        /// The block and table decoder against reading each pair as two
        /// digits: either case, now and then a byte in the way, odd lengths,
        /// whole blocks and the digits after them.
        #[test]
        fn decode_hex_reads_what_digit_by_digit_reading_reads(hex in hex_text()) {
            let expected: Option<Vec<u8>> = if hex.len().is_multiple_of(2) {
                pairs_one_by_one(&hex).into_iter().collect()
            } else {
                None
            };
            proptest::prop_assert_eq!(decode_hex(&hex), expected);
        }

        /// Lenient reading, a block at a time, against reading each pair:
        /// a pair with a non-digit is skipped wherever it falls, in a
        /// whole block or after the last one.
        #[test]
        fn hex_bytes_skips_what_pair_by_pair_reading_skips(hex in hex_text()) {
            let expected: Vec<u8> = pairs_one_by_one(&hex).into_iter().flatten().collect();
            proptest::prop_assert_eq!(hex_bytes(&hex), expected);
        }
    }

    #[test]
    fn decode_hex_refuses_non_digits_and_half_bytes() {
        assert_eq!(decode_hex("0aFF10"), Some(vec![0x0a, 0xff, 0x10]));
        assert_eq!(decode_hex(""), Some(vec![]));
        assert_eq!(decode_hex("0g"), None);
        assert_eq!(decode_hex("abc"), None);
        assert_eq!(decode_hex("é"), None);
    }

    #[test]
    fn the_envelope_skips_hex_pairs_that_are_not_two_digits() {
        assert_eq!(hex_bytes("0aZZFf1"), vec![0x0a, 0xff]);
        assert_eq!(hex_bytes("x0"), Vec::<u8>::new());
    }
}
