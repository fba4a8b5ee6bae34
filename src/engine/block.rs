//! Sixteen bytes at a time: which bytes of a block are of interest, as a
//! bit mask (bit `i` for byte `i`), for the scanner's search for a quote
//! and the envelope's search for bytes JSON must escape, and the bytes 16
//! hex digits spell, for LOB pieces and RAW values. On x86-64 a block is
//! one SSE2 register (part of the architecture, so no run-time detection);
//! elsewhere it is read byte by byte, with the same answers.

/// A block's worth of bytes.
pub(crate) const BLOCK: usize = 16;

/// The bits of the bytes of `block` equal to `needle`.
#[inline]
pub(crate) fn eq_mask(block: &[u8; BLOCK], needle: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::eq_mask(block, needle)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        portable::eq_mask(block, needle)
    }
}

/// The bits of the bytes of `block` a JSON string must escape: control
/// characters, `"` and `\`.
#[inline]
pub(crate) fn json_escape_mask(block: &[u8; BLOCK]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::json_escape_mask(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        portable::json_escape_mask(block)
    }
}

/// The 8 bytes 16 hex digits (either case) spell, and whether all 16 were
/// hex digits (when not, the bytes are meaningless).
#[inline]
pub(crate) fn hex_pairs(block: &[u8; BLOCK]) -> ([u8; BLOCK / 2], bool) {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::hex_pairs(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        portable::hex_pairs(block)
    }
}

/// The last block of `bytes` (which holds at least [`BLOCK`] bytes) with
/// its mask moved so that bit 0 stands for `bytes[from]`: the tail of a
/// scan read in one overlapping block rather than byte by byte.
#[inline]
pub(crate) fn tail_mask(bytes: &[u8], from: usize, mask: impl Fn(&[u8; BLOCK]) -> u32) -> u32 {
    let last = bytes.len() - BLOCK;
    debug_assert!(from >= last);
    match bytes
        .get(last..)
        .and_then(|b| <&[u8; BLOCK]>::try_from(b).ok())
    {
        Some(block) => mask(block) >> (from - last),
        None => 0,
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8,
        _mm_movemask_epi8, _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16, _mm_set1_epi8,
        _mm_slli_epi16, _mm_srli_epi16, _mm_storeu_si128, _mm_sub_epi8,
    };

    use super::BLOCK;

    // SAFETY (every block below): SSE2 is part of the x86-64 baseline, so
    // its instructions exist on every CPU this code is built for, and the
    // unaligned load reads exactly the 16 bytes the reference points to.

    #[inline]
    pub(super) fn eq_mask(block: &[u8; BLOCK], needle: u8) -> u32 {
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            bits(_mm_movemask_epi8(_mm_cmpeq_epi8(v, splat(needle))))
        }
    }

    #[inline]
    pub(super) fn json_escape_mask(block: &[u8; BLOCK]) -> u32 {
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            // A byte at most 0x1f (unsigned) is its own minimum with 0x1f.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(v, splat(0x1f)), v);
            let quote = _mm_cmpeq_epi8(v, splat(b'"'));
            let backslash = _mm_cmpeq_epi8(v, splat(b'\\'));
            bits(_mm_movemask_epi8(_mm_or_si128(
                control,
                _mm_or_si128(quote, backslash),
            )))
        }
    }

    #[inline]
    pub(super) fn hex_pairs(block: &[u8; BLOCK]) -> ([u8; BLOCK / 2], bool) {
        let mut out = [0u8; BLOCK];
        let bad = unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            // A digit's value is at most 9 after taking '0' away; a letter's
            // (either case) at most 5 after taking 'a' away from its
            // lower-case form. Wrapping subtraction puts everything else
            // above both.
            let digit = _mm_sub_epi8(v, splat(b'0'));
            let letter = _mm_sub_epi8(_mm_or_si128(v, splat(0x20)), splat(b'a'));
            let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(digit, splat(9)), digit);
            let is_letter = _mm_cmpeq_epi8(_mm_min_epu8(letter, splat(5)), letter);
            let nibbles = _mm_or_si128(
                _mm_and_si128(is_digit, digit),
                _mm_and_si128(is_letter, _mm_add_epi8(letter, splat(10))),
            );
            // Little-endian 16-bit lanes hold a pair: the high nibble in the
            // low byte, the low nibble in the high byte.
            let pairs = _mm_or_si128(
                _mm_slli_epi16(_mm_and_si128(nibbles, _mm_set1_epi16(0x00ff)), 4),
                _mm_srli_epi16(nibbles, 8),
            );
            _mm_storeu_si128(
                out.as_mut_ptr().cast::<__m128i>(),
                _mm_packus_epi16(pairs, pairs),
            );
            _mm_movemask_epi8(_mm_or_si128(is_digit, is_letter)) != 0xffff
        };
        let mut bytes = [0u8; BLOCK / 2];
        bytes.copy_from_slice(&out[..BLOCK / 2]);
        (bytes, !bad)
    }

    #[inline]
    fn splat(b: u8) -> __m128i {
        unsafe { _mm_set1_epi8(i8::from_ne_bytes([b])) }
    }

    /// The sign bits of 16 bytes fit 16 bits: never negative.
    #[inline]
    fn bits(movemask: i32) -> u32 {
        movemask.cast_unsigned()
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
mod portable {
    use super::BLOCK;

    fn mask(block: &[u8; BLOCK], hit: impl Fn(u8) -> bool) -> u32 {
        block
            .iter()
            .enumerate()
            .fold(0, |m, (i, &b)| m | (u32::from(hit(b)) << i))
    }

    pub(super) fn eq_mask(block: &[u8; BLOCK], needle: u8) -> u32 {
        mask(block, |b| b == needle)
    }

    pub(super) fn json_escape_mask(block: &[u8; BLOCK]) -> u32 {
        mask(block, |b| b < 0x20 || b == b'"' || b == b'\\')
    }

    pub(super) fn hex_pairs(block: &[u8; BLOCK]) -> ([u8; BLOCK / 2], bool) {
        let nibble = |b: u8| {
            char::from(b)
                .to_digit(16)
                .and_then(|d| u8::try_from(d).ok())
        };
        let mut out = [0u8; BLOCK / 2];
        let mut ok = true;
        for (o, pair) in out.iter_mut().zip(block.chunks_exact(2)) {
            match (nibble(pair[0]), nibble(pair[1])) {
                (Some(hi), Some(lo)) => *o = hi << 4 | lo,
                _ => ok = false,
            }
        }
        (out, ok)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn any_block() -> impl Strategy<Value = [u8; BLOCK]> {
        // Bytes near the edges the masks test (0x1f/0x20, the quotes, the
        // high bit) as often as any other byte.
        let byte = prop_oneof![
            Just(b'\''),
            Just(b'"'),
            Just(b'\\'),
            Just(0x1f_u8),
            Just(0x20_u8),
            Just(0x7f_u8),
            Just(0x80_u8),
            Just(0xff_u8),
            any::<u8>(),
        ];
        proptest::array::uniform16(byte)
    }

    proptest! {
        #[test]
        fn eq_mask_sets_the_bit_of_each_equal_byte(block in any_block(), needle in any::<u8>()) {
            prop_assert_eq!(eq_mask(&block, needle), portable::eq_mask(&block, needle));
            for (i, &b) in block.iter().enumerate() {
                prop_assert_eq!(eq_mask(&block, needle) >> i & 1 == 1, b == needle);
            }
        }

        #[test]
        fn json_escape_mask_sets_the_bit_of_each_byte_json_escapes(block in any_block()) {
            let mask = json_escape_mask(&block);
            prop_assert_eq!(mask, portable::json_escape_mask(&block));
            for (i, &b) in block.iter().enumerate() {
                let text = char::from(b).to_string();
                let escaped = serde_json::to_string(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
                // Bytes from 0x80 on are not characters alone; JSON never
                // escapes them (they are parts of UTF-8 sequences).
                let expected = b < 0x80 && escaped.len() != text.len() + 2;
                prop_assert_eq!(mask >> i & 1 == 1, expected, "byte {:#04x}", b);
            }
        }

        #[test]
        fn hex_pairs_reads_whole_blocks_of_digits_and_refuses_anything_else(
            // Mostly digits, so that many blocks are whole; the other bytes
            // are those next to the digit and letter ranges.
            block in proptest::array::uniform16(prop_oneof![
                40 => proptest::sample::select(b"0123456789abcdefABCDEF".to_vec()),
                1 => proptest::sample::select(b"/:@G`gxX \0\xff".to_vec()),
            ]),
        ) {
            let (bytes, ok) = hex_pairs(&block);
            let (expected, expected_ok) = portable::hex_pairs(&block);
            let all_digits = block.iter().all(u8::is_ascii_hexdigit);
            prop_assert_eq!(ok, all_digits);
            prop_assert_eq!(expected_ok, all_digits);
            if all_digits {
                prop_assert_eq!(bytes, expected);
            }
        }

        #[test]
        fn tail_mask_reads_the_bytes_from_its_start_to_the_end(
            bytes in proptest::collection::vec(prop_oneof![Just(b'\''), any::<u8>()], BLOCK..40),
            back in 0usize..BLOCK,
        ) {
            let from = bytes.len() - BLOCK + back;
            let mask = tail_mask(&bytes, from, |b| eq_mask(b, b'\''));
            let expected = bytes[from..]
                .iter()
                .enumerate()
                .fold(0u32, |m, (i, &b)| m | (u32::from(b == b'\'') << i));
            prop_assert_eq!(mask, expected);
        }
    }
}
