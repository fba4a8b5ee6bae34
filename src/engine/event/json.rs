//! The envelope written straight into a string, for the forms whose values
//! do not depend on column kinds: the same bytes as serialising it with
//! serde_json (a test compares the two), without the serializer's per-call
//! overhead or its regrowing buffer. Its string escaping and repeated
//! members serve writers of other JSON lines that keep the envelope's pace.

use std::ops::Range;

use super::field::{FieldRef, UNAVAILABLE_VALUE};
use super::forms::{BinaryHandling, ValueForms};
use super::hex::hex_bytes;
use super::image::Image;
use super::{ms_to_ns, ms_to_us, ChangeEvent, Op, VERSION};

/// Appends `s` as a JSON string, escaped as serde_json escapes it, for
/// writers of other JSON lines that keep the envelope's pace. Inline, so
/// a short clean name costs its copy in other crates too.
#[inline]
pub fn push_json_string(out: &mut String, s: &str) {
    string(out, s);
}

/// Members (`"name":value`) of an object already written in a line that
/// the object being written repeats, gathered into runs so neighbours are
/// copied at once: an UPDATE's after image repeats the before image's
/// members its SET left alone.
#[derive(Debug, Default)]
pub struct RepeatedMembers {
    /// The run's first member's index in the object being written, and
    /// the range of the line the run takes, commas between included.
    run: Option<(usize, std::ops::Range<usize>)>,
}

impl RepeatedMembers {
    /// Member `i` of the object being written is the earlier object's
    /// member written at `at`, the one after the last repeated.
    pub fn repeat(&mut self, i: usize, at: &std::ops::Range<usize>) {
        self.run = Some(match self.run.take() {
            Some((first, r)) => (first, r.start..at.end),
            None => (i, at.clone()),
        });
    }

    /// Copies the run gathered so far to the end of `out`, with the comma
    /// before it unless it starts the object: before a member written
    /// anew, and at the object's end.
    pub fn flush(&mut self, out: &mut String) {
        if let Some((first, r)) = self.run.take() {
            if first > 0 {
                out.push(',');
            }
            out.extend_from_within(r);
        }
    }
}

pub(super) fn write_change(out: &mut String, e: &ChangeEvent, forms: ValueForms) {
    let p = &e.source;
    out.push_str("{\"before\":");
    // An UPDATE's images share the statement's text: the after image's
    // columns the SET left alone are copied from the before image's JSON.
    let shared = match (&e.before, &e.after) {
        (Some(b), Some(a)) => b.shares_text(a).then(|| (b, Vec::with_capacity(b.len()))),
        _ => None,
    };
    match shared {
        Some((before, mut members)) => {
            image(out, Some(before), forms, Members::Record(&mut members));
            out.push_str(",\"after\":");
            image(
                out,
                e.after.as_ref(),
                forms,
                Members::Reuse(before, &members),
            );
        }
        None => {
            image(out, e.before.as_ref(), forms, Members::Neither);
            out.push_str(",\"after\":");
            image(out, e.after.as_ref(), forms, Members::Neither);
        }
    }
    source(out, e);
    out.push_str(",\"op\":\"");
    out.push_str(e.op.code());
    out.push_str("\",\"ts_ms\":");
    times(out, e.commit_ts_ms);
    if e.op == Op::Read {
        out.push_str(",\"transaction\":null}");
    } else {
        out.push_str(",\"transaction\":{\"id\":");
        string(out, &p.tx_id());
        out.push_str(",\"total_order\":");
        uint(out, u64::from(e.index) + 1);
        out.push_str(",\"data_collection_order\":");
        uint(out, u64::from(e.table_order));
        if e.partial {
            out.push_str(",\"partial\":true");
        }
        out.push_str("}}");
    }
}

/// The `source` block, `,"source":{...}`.
fn source(out: &mut String, e: &ChangeEvent) {
    let p = &e.source;
    let read = e.op == Op::Read;
    out.push_str(",\"source\":{\"version\":");
    string(out, VERSION);
    out.push_str(",\"connector\":\"");
    out.push_str(p.dialect.connector());
    out.push_str("\",\"name\":");
    string(out, &p.name);
    out.push_str(",\"ts_ms\":");
    times(out, p.change_ts_ms);
    out.push_str(",\"snapshot\":");
    string(out, e.snapshot.label());
    out.push_str(",\"db\":");
    string(out, &p.db);
    out.push_str(",\"schema\":");
    string(out, &p.schema);
    out.push_str(",\"table\":");
    string(out, &p.table);
    if read {
        out.push_str(",\"txId\":null,\"scn\":\"");
        uint(out, p.scn);
        out.push_str("\",\"commit_scn\":null,\"snapshot_chunk\":");
        uint(out, u64::from(e.index));
    } else {
        out.push_str(",\"txId\":");
        string(out, &p.tx_id());
        out.push_str(",\"scn\":\"");
        uint(out, p.scn);
        out.push_str("\",\"commit_scn\":\"");
        uint(out, p.commit_scn);
        out.push('"');
    }
    out.push_str(",\"rs_id\":");
    opt_string(out, p.rs_id_trimmed());
    out.push_str(",\"ssn\":");
    uint(out, p.ssn);
    out.push_str(",\"redo_thread\":");
    uint(out, u64::from(p.thread));
    out.push_str(",\"user_name\":");
    opt_string(out, p.user_name.as_deref());
    out.push_str(",\"row_id\":");
    opt_string(out, p.row_id.as_deref());
    out.push_str(",\"commit_ts_ms\":");
    opt_int(out, (!read).then_some(e.commit_ts_ms));
    out.push_str(",\"start_scn\":");
    match p.start_scn {
        Some(scn) => {
            out.push('"');
            uint(out, scn);
            out.push('"');
        }
        None => out.push_str("null"),
    }
    out.push_str(",\"start_ts_ms\":");
    opt_int(out, p.start_ts_ms);
    out.push('}');
}

/// A time in ms and its `_us` and `_ns` members after it: `1,"ts_us":1000,"ts_ns":1000000`.
fn times(out: &mut String, ms: i64) {
    int(out, ms);
    out.push_str(",\"ts_us\":");
    int(out, ms_to_us(ms));
    out.push_str(",\"ts_ns\":");
    int(out, ms_to_ns(ms));
}

/// What [`image`] does with the members (`"name":value`) it writes
/// besides writing them.
enum Members<'m> {
    Neither,
    /// Notes where each one went in the line.
    Record(&'m mut Vec<Range<usize>>),
    /// Copies those this image shares with the one given (whose members
    /// are where the ranges say), neighbouring ones in one copy.
    Reuse(&'m Image, &'m [Range<usize>]),
}

fn image(out: &mut String, image: Option<&Image>, forms: ValueForms, mut members: Members<'_>) {
    let Some(image) = image else {
        out.push_str("null");
        return;
    };
    out.push('{');
    let mut repeated = RepeatedMembers::default();
    for (i, (column, value)) in image.iter().enumerate() {
        if let Members::Reuse(other, at) = &members {
            if let (true, Some(m)) = (image.shares_column(other, i), at.get(i)) {
                repeated.repeat(i, m);
                continue;
            }
        }
        repeated.flush(out);
        if i > 0 {
            out.push(',');
        }
        let start = out.len();
        string(out, column);
        out.push(':');
        push_field_json(out, value, forms);
        if let Members::Record(at) = &mut members {
            at.push(start..out.len());
        }
    }
    repeated.flush(out);
    out.push('}');
}

/// A value as an image in these forms writes it when column kinds do not
/// matter: the same bytes as [`ValueForms::field_json`] serialised, for
/// keys built beside the envelope at its pace.
#[inline]
pub fn push_field_json(out: &mut String, value: FieldRef<'_>, forms: ValueForms) {
    match value {
        FieldRef::Null => out.push_str("null"),
        FieldRef::Text(t) => string(out, t),
        FieldRef::Binary(hex) => binary(out, hex, forms),
        FieldRef::Unavailable => string(out, UNAVAILABLE_VALUE),
        FieldRef::UnavailableBinary => string(out, &forms.unavailable_binary()),
    }
}

/// [`ValueForms::binary_text`] written in place: base64 needs no
/// escaping, so it goes straight into the line.
fn binary(out: &mut String, hex: &str, forms: ValueForms) {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};
    use base64::Engine as _;
    let engine = match forms.binary {
        BinaryHandling::Base64 => &STANDARD,
        BinaryHandling::Base64UrlSafe => &URL_SAFE,
        BinaryHandling::Hex => return string(out, hex),
    };
    let bytes = hex_bytes(hex);
    out.push('"');
    engine.encode_string(&bytes, out);
    out.push('"');
}

fn opt_int(out: &mut String, n: Option<i64>) {
    match n {
        Some(n) => int(out, n),
        None => out.push_str("null"),
    }
}

fn opt_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.push_str("null"),
    }
}

/// Bytes JSON strings must escape: control characters, `"` and `\`.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

#[inline]
fn needs_escape(b: u8) -> bool {
    NEEDS_ESCAPE[usize::from(b)]
}

/// A JSON string, escaped as serde_json escapes it (short escapes where
/// JSON has them, `\u00xx` in lower-case hex for other controls). The
/// text is tested sixteen bytes at a time (`engine::block`): long text
/// columns are mostly clean, with a newline or quote here and there,
/// and a clean block costs a handful of instructions.
#[inline]
fn string(out: &mut String, s: &str) {
    // Column names and most values of a row are short and clean: tested
    // in a register or two and copied, without the block loop's set-up
    // or a call.
    if s.len() <= 16 && !short_needs_escape(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    escaped(out, s);
}

/// Whether any of up to 16 bytes must be escaped: from 4 bytes on, read
/// as 8-byte words (two overlapping ones, or two overlapping 4-byte
/// halves), so a name or a short value costs no loop.
#[inline]
fn short_needs_escape(b: &[u8]) -> bool {
    fn word<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut w = [0; N];
        w.copy_from_slice(&b[..N]);
        w
    }
    let n = b.len();
    if n >= 8 {
        let first = u64::from_le_bytes(word(b));
        let last = u64::from_le_bytes(word(&b[n - 8..]));
        escape_flags(first) | escape_flags(last) != 0
    } else if n >= 4 {
        let first = u64::from(u32::from_le_bytes(word(b)));
        let last = u64::from(u32::from_le_bytes(word(&b[n - 4..])));
        escape_flags(first | last << 32) != 0
    } else {
        b.iter().any(|&c| needs_escape(c))
    }
}

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// High bit set in the bytes of `w` below `n` (`n` at most 0x80). A
/// borrow can flag a byte above a flagged one too, never a word with
/// none flagged, so whether any is flagged is exact.
#[inline]
fn below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS
}

/// Flags, as [`below`], the bytes of an 8-byte word JSON must escape.
#[inline]
fn escape_flags(w: u64) -> u64 {
    below(w, 0x20)
        | below(w ^ (ONES * u64::from(b'"')), 1)
        | below(w ^ (ONES * u64::from(b'\\')), 1)
}

/// [`string`] for text that is long or has bytes to escape.
#[inline(never)]
fn escaped(out: &mut String, s: &str) {
    use crate::engine::block::{self, BLOCK};
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push('"');
    let mut start = 0;
    let mut at = 0;
    while at < b.len() {
        let mut mask = match b
            .get(at..at + BLOCK)
            .and_then(|c| <&[u8; BLOCK]>::try_from(c).ok())
        {
            Some(chunk) => block::json_escape_mask(chunk),
            None if b.len() >= BLOCK => block::tail_mask(b, at, block::json_escape_mask),
            None => b[at..]
                .iter()
                .enumerate()
                .fold(0, |m, (i, &c)| m | (u32::from(needs_escape(c)) << i)),
        };
        while mask != 0 {
            let j = at + mask.trailing_zeros() as usize;
            // Every escaped byte is ASCII, so both slices end on char
            // boundaries.
            out.push_str(&s[start..j]);
            escape(out, b[j]);
            start = j + 1;
            mask &= mask - 1;
        }
        at += BLOCK;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn escape(out: &mut String, c: u8) {
    match c {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(c >> 4)]));
            out.push(char::from(HEX[usize::from(c & 0xf)]));
        }
    }
}

fn uint(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

fn int(out: &mut String, n: i64) {
    out.push_str(itoa::Buffer::new().format(n));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_escaping_matches_serde_json_for_every_special_byte_at_every_block_offset() {
        let specials: Vec<char> = (0u8..0x20)
            .chain([b'"', b'\\', 0x7f, b' ', b'!', b'#', b'[', b']'])
            .map(char::from)
            .chain(['é', '中', '\u{1F600}', '\u{2028}'])
            .collect();
        for len in 0..40 {
            for at in 0..len {
                for &c in &specials {
                    let mut text: String = (0..len)
                        .map(|i| char::from(b'a' + (i % 26) as u8))
                        .collect();
                    text.replace_range(at..at + 1, &c.to_string());
                    // A second special further on: escapes after an escape.
                    text.push(specials[(at * 7 + len) % specials.len()]);
                    let mut out = String::new();
                    push_json_string(&mut out, &text);
                    assert_eq!(out, serde_json::to_string(&text).unwrap(), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn a_field_written_in_place_is_what_field_json_serialises_in_every_binary_form() {
        let values = [
            FieldRef::Null,
            FieldRef::Text("plain"),
            FieldRef::Text("a \"quoted\"\nline é"),
            FieldRef::Binary("00ff10ab"),
            FieldRef::Unavailable,
            FieldRef::UnavailableBinary,
        ];
        for forms in ValueForms::in_each_binary_form() {
            for value in values {
                let mut out = String::new();
                push_field_json(&mut out, value, forms);
                let serialised = serde_json::to_string(&forms.field_json(value)).unwrap();
                assert_eq!(out, serialised, "{value:?} in {:?}", forms.binary);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn string_escaping_matches_serde_json_for_any_text(text in "(?s).{0,80}") {
            let mut out = String::new();
            push_json_string(&mut out, &text);
            proptest::prop_assert_eq!(out, serde_json::to_string(&text).unwrap());
        }
    }
}
