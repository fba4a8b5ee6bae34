//! Native JSON documents as the database stores them: binary OSON, the
//! bytes SQL_REDO prints in `/* JSON */ HEXTORAW('…')` for an update.
//!
//! The layout is Oracle's (header, field-name dictionary, tree of nodes;
//! the engine's `redo::oson` reads it). Like the database, the encoder
//! writes numbers as Oracle NUMBER (a BINARY_DOUBLE past NUMBER's range),
//! short strings and numbers with their length in the node's type byte, and
//! each object's members sorted by field id, the order lookups search them
//! in, so a document reads back with its members in that order rather than
//! as written ([`stored_text`]).

use std::collections::HashMap;

use serde_json::{Map, Number, Value as Json};

use super::number::oracle_number;

const MAGIC: [u8; 3] = [0xFF, 0x4A, 0x5A];
/// Flags every document carries (inline leaves, lengths in the type byte,
/// one-byte hash ids, the tiny-node count).
const BASE_FLAGS: u16 = 0x2106;
const IS_SCALAR: u16 = 0x0010;
const NUM_FNAMES_U32: u16 = 0x0008;
const NUM_FNAMES_U16: u16 = 0x0400;
const FNAMES_SEG_U32: u16 = 0x0800;
const TREE_SEG_U32: u16 = 0x1000;
const LONG_FNAME_OFFSETS_U16: u16 = 0x0100;
/// Names past this many bytes go to version 3's long-name segment.
const SHORT_NAME_MAX: usize = 255;

/// The OSON bytes of a document. Text that is not JSON is stored as one
/// JSON string (the database would have refused it; scenarios hold JSON).
pub fn encode(doc: &str) -> Vec<u8> {
    let value = serde_json::from_str(doc).unwrap_or_else(|_| Json::from(doc));
    encode_value(&value)
}

/// The document as the database returns it: compact, each object's
/// members in stored order. Numbers keep serde_json's spelling, which is
/// the decoded NUMBER's for the integers scenarios generate.
pub fn stored_text(doc: &str) -> String {
    let value = serde_json::from_str(doc).unwrap_or_else(|_| Json::from(doc));
    let names = Dictionary::of(&value);
    names.reorder(&value).to_string()
}

/// [`encode`] of a parsed document.
pub fn encode_value(value: &Json) -> Vec<u8> {
    let dict = Dictionary::of(value);
    let mut tree = Tree {
        out: Vec::new(),
        wide: false,
        dict: &dict,
    };
    tree.node(value);
    if tree.out.len() > usize::from(u16::MAX) {
        tree = Tree {
            out: Vec::new(),
            wide: true,
            dict: &dict,
        };
        tree.node(value);
    }
    let mut b = MAGIC.to_vec();
    b.push(if dict.long.is_empty() { 1 } else { 3 });
    let tree_flag = if tree.wide { TREE_SEG_U32 } else { 0 };
    if !matches!(value, Json::Object(_) | Json::Array(_)) {
        b.extend_from_slice(&(BASE_FLAGS & 0x00ff | IS_SCALAR | tree_flag).to_be_bytes());
        push_uint(&mut b, tree.out.len(), if tree.wide { 4 } else { 2 });
        b.extend_from_slice(&tree.out);
        return b;
    }
    let short = Segment::build(&dict.short, 1);
    let long = Segment::build(&dict.long, 2);
    let mut flags = BASE_FLAGS | tree_flag;
    flags |= match dict.id_width {
        1 => 0,
        2 => NUM_FNAMES_U16,
        _ => NUM_FNAMES_U32,
    };
    if short.offset_width == 4 {
        flags |= FNAMES_SEG_U32;
    }
    b.extend_from_slice(&flags.to_be_bytes());
    push_uint(&mut b, dict.short.len(), dict.id_width);
    push_uint(&mut b, short.names.len(), short.offset_width);
    if !dict.long.is_empty() {
        let second = if long.offset_width == 2 {
            LONG_FNAME_OFFSETS_U16
        } else {
            0
        };
        b.extend_from_slice(&second.to_be_bytes());
        push_uint(&mut b, dict.long.len(), 4);
        push_uint(&mut b, long.names.len(), 4);
    }
    push_uint(&mut b, tree.out.len(), if tree.wide { 4 } else { 2 });
    b.extend_from_slice(&[0, 0]); // no tiny nodes
    short.write(&mut b);
    long.write(&mut b);
    b.extend_from_slice(&tree.out);
    b
}

fn push_uint(b: &mut Vec<u8>, v: usize, width: usize) {
    match width {
        1 => b.push(v as u8),
        2 => b.extend_from_slice(&(v as u16).to_be_bytes()),
        _ => b.extend_from_slice(&(v as u32).to_be_bytes()),
    }
}

/// FNV-1a of a field name: the dictionary is ordered by its low byte.
fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0x811C_9DC5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16_777_619)
    })
}

/// The document's field names, short ones then long ones, each group in
/// dictionary order; a name's field id is its place in the whole, from 1.
struct Dictionary {
    short: Vec<String>,
    long: Vec<String>,
    ids: HashMap<String, u32>,
    id_width: usize,
}

impl Dictionary {
    fn of(value: &Json) -> Self {
        let mut seen = HashMap::new();
        collect_names(value, &mut seen);
        let (mut short, mut long): (Vec<String>, Vec<String>) =
            seen.into_keys().partition(|n| n.len() <= SHORT_NAME_MAX);
        let key = |n: &String| (name_hash(n) & 0xff, n.len(), n.clone().into_bytes());
        short.sort_by_key(key);
        long.sort_by_key(key);
        let ids = short
            .iter()
            .chain(&long)
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32 + 1))
            .collect::<HashMap<_, _>>();
        let id_width = match ids.len() {
            0..=255 => 1,
            256..=65535 => 2,
            _ => 4,
        };
        Dictionary {
            short,
            long,
            ids,
            id_width,
        }
    }

    fn id(&self, name: &str) -> u32 {
        self.ids.get(name).copied().unwrap_or(0)
    }

    /// An object's members sorted by field id.
    fn members<'v>(&self, map: &'v Map<String, Json>) -> Vec<(&'v String, &'v Json)> {
        let mut m: Vec<_> = map.iter().collect();
        m.sort_by_key(|(k, _)| self.id(k));
        m
    }

    /// The value with every object's members in stored order.
    fn reorder(&self, value: &Json) -> Json {
        match value {
            Json::Object(map) => Json::Object(
                self.members(map)
                    .into_iter()
                    .map(|(k, v)| (k.clone(), self.reorder(v)))
                    .collect(),
            ),
            Json::Array(a) => Json::Array(a.iter().map(|v| self.reorder(v)).collect()),
            other => other.clone(),
        }
    }
}

fn collect_names(value: &Json, seen: &mut HashMap<String, ()>) {
    match value {
        Json::Object(map) => {
            for (k, v) in map {
                seen.insert(k.clone(), ());
                collect_names(v, seen);
            }
        }
        Json::Array(a) => a.iter().for_each(|v| collect_names(v, seen)),
        _ => {}
    }
}

/// One field-name segment laid out: each name after its length.
struct Segment {
    hashes: Vec<u8>,
    offsets: Vec<usize>,
    names: Vec<u8>,
    offset_width: usize,
}

impl Segment {
    /// `len_width`: 1 for short names (one-byte hash ids), 2 for long.
    fn build(names: &[String], len_width: usize) -> Self {
        let mut s = Segment {
            hashes: Vec::new(),
            offsets: Vec::new(),
            names: Vec::new(),
            offset_width: 2,
        };
        for n in names {
            let h = name_hash(n);
            if len_width == 1 {
                s.hashes.push(h as u8);
            } else {
                s.hashes.extend_from_slice(&(h as u16).to_be_bytes());
            }
            s.offsets.push(s.names.len());
            push_uint(&mut s.names, n.len(), len_width);
            s.names.extend_from_slice(n.as_bytes());
        }
        if s.names.len() > usize::from(u16::MAX) {
            s.offset_width = 4;
        }
        s
    }

    fn write(&self, b: &mut Vec<u8>) {
        b.extend_from_slice(&self.hashes);
        for &o in &self.offsets {
            push_uint(b, o, self.offset_width);
        }
        b.extend_from_slice(&self.names);
    }
}

/// The tree segment; `wide`: 32-bit child offsets (a tree past 64 KiB).
struct Tree<'d> {
    out: Vec<u8>,
    wide: bool,
    dict: &'d Dictionary,
}

impl Tree<'_> {
    fn node(&mut self, value: &Json) {
        match value {
            Json::Null => self.out.push(0x30),
            Json::Bool(true) => self.out.push(0x31),
            Json::Bool(false) => self.out.push(0x32),
            Json::String(s) => self.string(s),
            Json::Number(n) => self.number(n),
            Json::Array(a) => {
                let children: Vec<&Json> = a.iter().collect();
                self.container(0xc0, &[], &children);
            }
            Json::Object(map) => {
                let (ids, children): (Vec<u32>, Vec<&Json>) = self
                    .dict
                    .members(map)
                    .into_iter()
                    .map(|(k, v)| (self.dict.id(k), v))
                    .unzip();
                self.container(0x84, &ids, &children);
            }
        }
    }

    fn string(&mut self, s: &str) {
        let len = s.len();
        match len {
            0..=31 => self.out.push(len as u8),
            32..=255 => self.out.extend_from_slice(&[0x33, len as u8]),
            256..=65535 => {
                self.out.push(0x37);
                push_uint(&mut self.out, len, 2);
            }
            _ => {
                self.out.push(0x38);
                push_uint(&mut self.out, len, 4);
            }
        }
        self.out.extend_from_slice(s.as_bytes());
    }

    /// NUMBER with its length in the type byte (0x40 + length for an
    /// integer, 0x20 + length - 1 otherwise), or BINARY_DOUBLE out of range.
    fn number(&mut self, n: &Number) {
        let text = match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) if f == 0.0 || (1e-129..1e125).contains(&f.abs()) => f.to_string(),
            (_, _, f) => return self.double(f.unwrap_or(0.0)),
        };
        let bytes = oracle_number(&text);
        let integer = !text.contains('.');
        match bytes.len() {
            len @ 1..=15 if integer => self.out.push(0x40 | len as u8),
            len @ 1..=16 => self.out.push(0x20 | (len - 1) as u8),
            len => self.out.extend_from_slice(&[0x34, len as u8]),
        }
        self.out.extend_from_slice(&bytes);
    }

    /// BINARY_DOUBLE: IEEE bytes with the sign bit set for a positive
    /// value and every bit inverted for a negative one (they sort).
    fn double(&mut self, f: f64) {
        let mut b = f.to_be_bytes();
        if f.is_sign_negative() {
            b.iter_mut().for_each(|x| *x = !*x);
        } else {
            b[0] |= 0x80;
        }
        self.out.push(0x36);
        self.out.extend_from_slice(&b);
    }

    /// A container: its type (with the offset and count widths), the child
    /// count, field ids for an object, then child offsets filled in as the
    /// children are written after them.
    fn container(&mut self, ty: u8, ids: &[u32], children: &[&Json]) {
        let count = children.len();
        let (count_bits, count_width) = match count {
            0..=255 => (0x00, 1),
            256..=65535 => (0x08, 2),
            _ => (0x10, 4),
        };
        let offset_width = if self.wide { 4 } else { 2 };
        self.out
            .push(ty | count_bits | if self.wide { 0x20 } else { 0 });
        push_uint(&mut self.out, count, count_width);
        for &id in ids {
            push_uint(&mut self.out, id as usize, self.dict.id_width);
        }
        let mut slot = self.out.len();
        self.out.resize(slot + count * offset_width, 0);
        for child in children {
            let at = self.out.len();
            let mut field = Vec::with_capacity(offset_width);
            push_uint(&mut field, at, offset_width);
            self.out[slot..slot + offset_width].copy_from_slice(&field);
            slot += offset_width;
            self.node(child);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value as Json;

    use super::*;
    use crate::engine::redo::oson::decode;

    /// Equal documents: members in any order, numbers by value.
    fn same(a: &Json, b: &Json) -> bool {
        match (a, b) {
            (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
                (Some(i), Some(j)) => i == j,
                // serde_json's float parsing may land one unit off.
                _ => match (x.as_f64(), y.as_f64()) {
                    (Some(f), Some(g)) => {
                        f == g || ((f - g) / f).abs() < 1e-12 || (f - g).abs() < 1e-300
                    }
                    _ => false,
                },
            },
            (Json::Object(x), Json::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
            }
            (Json::Array(x), Json::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
            }
            _ => a == b,
        }
    }

    fn scalar() -> impl Strategy<Value = Json> {
        prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::from),
            any::<i64>().prop_map(Json::from),
            any::<u64>().prop_map(Json::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Json::from),
            (any::<i32>(), 0u32..12)
                .prop_map(|(m, s)| Json::from(f64::from(m) / 10f64.powi(s as i32))),
            ".{0,40}".prop_map(Json::from),
            (300usize..70_000).prop_map(|n| Json::from("s".repeat(n))),
        ]
    }

    fn document() -> impl Strategy<Value = Json> {
        scalar().prop_recursive(5, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Json::Array),
                prop::collection::vec(("[a-zA-Z_é中]{0,12}|.{0,300}", inner), 0..8)
                    .prop_map(|m| Json::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn documents_round_trip_through_the_encoder_and_the_engine_decoder(doc in document()) {
            let oson = encode_value(&doc);
            let text = decode(&oson).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back: Json = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(same(&doc, &back), "{} -> {}", doc, text);
        }
    }

    #[test]
    fn wide_documents_use_the_wide_counts_and_offsets_and_still_decode() {
        // 70 000 one-key objects: 16-bit field ids, 32-bit tree offsets,
        // 32-bit child counts.
        let names: Map<String, Json> = (0..300).map(|i| (format!("k{i}"), Json::from(i))).collect();
        let doc = Json::Array(vec![
            Json::Object(names),
            Json::Array(vec![Json::Null; 70_000]),
        ]);
        let oson = encode_value(&doc);
        assert_eq!(
            oson[4..6],
            (BASE_FLAGS | NUM_FNAMES_U16 | TREE_SEG_U32).to_be_bytes()
        );
        let back: Json = serde_json::from_str(&decode(&oson).expect("decodes")).expect("json");
        assert!(same(&doc, &back));
    }

    #[test]
    fn members_read_back_in_field_id_order_as_stored_text_gives_them() {
        let doc = r#"{"status":"open","id":7,"tags":["a"],"a":{"z":1,"b":2}}"#;
        let text = decode(&encode(doc)).expect("decodes");
        assert_eq!(text, stored_text(doc));
        assert_ne!(
            text, doc,
            "the dictionary order differs from the written one here"
        );
        let long = format!(r#"{{"{}":1,"b":true}}"#, "n".repeat(300));
        assert_eq!(encode(&long)[3], 3, "a name past 255 bytes takes version 3");
        assert_eq!(decode(&encode(&long)).expect("decodes"), stored_text(&long));
    }

    #[test]
    fn numbers_are_stored_as_oracle_number_with_the_length_in_the_type() {
        // 42: integer node 0x42 (two bytes), then c1 2b.
        assert_eq!(
            encode("42"),
            [0xff, 0x4a, 0x5a, 0x01, 0x00, 0x16, 0x00, 0x03, 0x42, 0xc1, 0x2b]
        );
        assert_eq!(
            decode(&encode("[1.5,-7,1e300]")).expect("decodes"),
            "[1.5,-7,1e+300]"
        );
    }
}
