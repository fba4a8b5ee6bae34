//! Binary OSON (the storage of Oracle 21c+ native JSON, which SQL_REDO
//! prints as `/* JSON */ HEXTORAW('ff4a5a01…')`) decoded to JSON text.
//!
//! The layout: a header (`0xFF 'J' 'Z'`, a version, flags saying how wide
//! each count and size is), a dictionary of the document's field names, and
//! a tree segment of nodes. A container node lists its children by offset
//! into the tree (an object also by field id into the dictionary); a scalar
//! node is a type byte and its bytes (see [`scalar`]). Hostile bytes end in
//! an [`OsonError`], never a panic: every read is bounds-checked, nesting is
//! capped and so is the work offsets that point back into the tree can make.

mod scalar;
#[cfg(test)]
mod tests;

use thiserror::Error;

/// Why bytes could not be decoded as OSON.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OsonError {
    #[error("no OSON header (0xFF 'JZ')")]
    NotOson,
    #[error("OSON version {0} is not one cdcctl reads (1 or 3)")]
    Version(u8),
    #[error("the OSON bytes end inside the value at byte {0}")]
    Truncated(usize),
    #[error("OSON node type 0x{ty:02x} at byte {at} is not one cdcctl decodes")]
    NodeType { ty: u8, at: usize },
    #[error("OSON field id {0} names no field")]
    FieldId(u32),
    #[error("invalid OSON {what} at byte {at}")]
    Invalid { what: &'static str, at: usize },
    #[error("OSON nodes nest deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("OSON offsets reach more nodes than the bytes hold")]
    TooLarge,
}

const MAGIC: [u8; 3] = [0xFF, 0x4A, 0x5A];
/// Field names up to 255 bytes; version 3 adds a segment of longer ones.
const VERSION_SHORT_NAMES: u8 = 1;
const VERSION_LONG_NAMES: u8 = 3;

// Header flags.
const REL_OFFSETS: u16 = 0x0001;
const NUM_FNAMES_U32: u16 = 0x0008;
const IS_SCALAR: u16 = 0x0010;
const NUM_FNAMES_U16: u16 = 0x0400;
const FNAMES_SEG_U32: u16 = 0x0800;
const TREE_SEG_U32: u16 = 0x1000;
/// In version 3's second flags: long-name offsets are 16-bit.
const LONG_FNAME_OFFSETS_U16: u16 = 0x0100;

/// Oracle's own limit on JSON nesting is 1000 levels.
const MAX_DEPTH: usize = 1000;

/// Whether bytes start with the OSON header.
pub fn is_oson(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// The JSON text of an OSON document: compact, object members in the order
/// the tree stores them. Scalars JSON has no type for are rendered as
/// [`scalar`] documents.
pub fn decode(bytes: &[u8]) -> Result<String, OsonError> {
    let mut r = Reader { b: bytes, pos: 0 };
    if r.take(3)? != MAGIC {
        return Err(OsonError::NotOson);
    }
    let version = r.u8()?;
    if version != VERSION_SHORT_NAMES && version != VERSION_LONG_NAMES {
        return Err(OsonError::Version(version));
    }
    let flags = r.u16()?;
    let mut d = Decoder {
        b: bytes,
        names: Vec::new(),
        field_id_len: 1,
        tree: 0,
        relative: flags & REL_OFFSETS != 0,
        nodes_left: bytes.len().saturating_mul(4) + 64,
        out: String::new(),
    };
    if flags & IS_SCALAR != 0 {
        r.skip(if flags & TREE_SEG_U32 != 0 { 4 } else { 2 })?;
        d.tree = r.pos;
    } else {
        d.read_dictionary(&mut r, version, flags)?;
    }
    d.node(d.tree, 0)?;
    Ok(d.out)
}

/// Bounds-checked big-endian reads.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn at(b: &'a [u8], pos: usize) -> Self {
        Reader { b, pos }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], OsonError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or(OsonError::Truncated(self.pos))?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn skip(&mut self, n: usize) -> Result<(), OsonError> {
        self.take(n).map(|_| ())
    }

    fn u8(&mut self) -> Result<u8, OsonError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, OsonError> {
        let s = self.take(2)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }

    fn u32(&mut self) -> Result<u32, OsonError> {
        let s = self.take(4)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// An unsigned number `width` bytes wide (1, 2 or 4).
    fn uint(&mut self, width: usize) -> Result<u32, OsonError> {
        match width {
            1 => self.u8().map(u32::from),
            2 => self.u16().map(u32::from),
            _ => self.u32(),
        }
    }
}

struct Decoder<'a> {
    b: &'a [u8],
    /// Field names as quoted JSON strings, by field id - 1.
    names: Vec<String>,
    field_id_len: usize,
    /// Where the tree segment starts.
    tree: usize,
    /// Whether a container's child offsets count from the container.
    relative: bool,
    /// Offsets may point at a node more than once: this and a cap on the
    /// text's length bound the work.
    nodes_left: usize,
    out: String,
}

impl Decoder<'_> {
    /// The header after the flags and the field-name segments; leaves
    /// `tree` at the tree segment.
    fn read_dictionary(
        &mut self,
        r: &mut Reader<'_>,
        version: u8,
        flags: u16,
    ) -> Result<(), OsonError> {
        self.field_id_len = if flags & NUM_FNAMES_U32 != 0 {
            4
        } else if flags & NUM_FNAMES_U16 != 0 {
            2
        } else {
            1
        };
        let short_count = r.uint(self.field_id_len)?;
        let short_offset_len = if flags & FNAMES_SEG_U32 != 0 { 4 } else { 2 };
        let short_size = r.uint(short_offset_len)?;
        let (mut long_count, mut long_size, mut long_offset_len) = (0, 0, 4);
        if version == VERSION_LONG_NAMES {
            if r.u16()? & LONG_FNAME_OFFSETS_U16 != 0 {
                long_offset_len = 2;
            }
            long_count = r.u32()?;
            long_size = r.u32()?;
        }
        let tree_size = r.uint(if flags & TREE_SEG_U32 != 0 { 4 } else { 2 })?;
        let _tiny_nodes = r.u16()?;
        let short = NameSegment {
            count: short_count,
            hash_len: 1,
            offset_len: short_offset_len,
            size: short_size,
            len_width: 1,
        };
        self.read_names(r, &short)?;
        let long = NameSegment {
            count: long_count,
            hash_len: 2,
            offset_len: long_offset_len,
            size: long_size,
            len_width: 2,
        };
        self.read_names(r, &long)?;
        self.tree = r.pos;
        if (tree_size as usize) > self.b.len() - r.pos {
            return Err(OsonError::Truncated(self.b.len()));
        }
        Ok(())
    }

    /// One field-name segment: hash ids, offsets, then the names, each
    /// after its length.
    fn read_names(&mut self, r: &mut Reader<'_>, seg: &NameSegment) -> Result<(), OsonError> {
        let count = seg.count as usize;
        r.skip(count.checked_mul(seg.hash_len).ok_or(OsonError::TooLarge)?)?;
        let offsets = r.take(
            count
                .checked_mul(seg.offset_len)
                .ok_or(OsonError::TooLarge)?,
        )?;
        let names = r.take(seg.size as usize)?;
        for off in offsets.chunks_exact(seg.offset_len) {
            let off = Reader::at(off, 0).uint(seg.offset_len)? as usize;
            let mut n = Reader::at(names, off);
            let len = n.uint(seg.len_width)? as usize;
            let at = r.pos - names.len() + off;
            let name = n.take(len).map_err(|_| OsonError::Truncated(at))?;
            let name = std::str::from_utf8(name).map_err(|_| OsonError::Invalid {
                what: "field name (not UTF-8)",
                at,
            })?;
            self.names.push(scalar::quoted(name));
        }
        Ok(())
    }

    fn node(&mut self, at: usize, depth: usize) -> Result<(), OsonError> {
        self.nodes_left = self.nodes_left.checked_sub(1).ok_or(OsonError::TooLarge)?;
        if self.out.len() > self.b.len().saturating_mul(16) + 4096 {
            return Err(OsonError::TooLarge);
        }
        let mut r = Reader::at(self.b, at);
        let ty = r.u8()?;
        if ty & 0x80 != 0 {
            if depth >= MAX_DEPTH {
                return Err(OsonError::TooDeep);
            }
            return self.container(at, ty, depth + 1);
        }
        scalar::write(&mut r, ty, &mut self.out)
    }

    /// An object (bit 0x40 clear) or array (set). Bit 0x20: 32-bit child
    /// offsets, else 16-bit. Bits 0x18: the child count's width (1, 2 or 4
    /// bytes), or 0x18 for an object that shares the field ids of another,
    /// whose offset comes first.
    fn container(&mut self, at: usize, ty: u8, depth: usize) -> Result<(), OsonError> {
        let array = ty & 0x40 != 0;
        let offset_len = if ty & 0x20 != 0 { 4 } else { 2 };
        let mut r = Reader::at(self.b, at + 1);
        let (count, ids_at, offsets_at) = if ty & 0x18 == 0x18 {
            let shared = self.tree_pos(r.uint(offset_len)?, 0, at)?;
            let mut s = Reader::at(self.b, shared);
            let shared_ty = s.u8()?;
            (Self::child_count(&mut s, shared_ty, shared)?, s.pos, r.pos)
        } else {
            let count = Self::child_count(&mut r, ty, at)?;
            let ids = if array {
                0
            } else {
                count as usize * self.field_id_len
            };
            (count, r.pos, r.pos + ids)
        };
        let shared = ty & 0x18 == 0x18;
        let object = !array || shared;
        let base = if self.relative { at - self.tree } else { 0 };
        self.out.push(if object { '{' } else { '[' });
        let mut ids = Reader::at(self.b, ids_at);
        let mut offsets = Reader::at(self.b, offsets_at);
        for i in 0..count {
            if i > 0 {
                self.out.push(',');
            }
            if object {
                let id = ids.uint(self.field_id_len)?;
                let name = id
                    .checked_sub(1)
                    .and_then(|i| self.names.get(i as usize))
                    .ok_or(OsonError::FieldId(id))?;
                self.out.push_str(name);
                self.out.push(':');
            }
            let child = self.tree_pos(offsets.uint(offset_len)?, base, offsets.pos)?;
            self.node(child, depth)?;
        }
        self.out.push(if object { '}' } else { ']' });
        Ok(())
    }

    fn child_count(r: &mut Reader<'_>, ty: u8, at: usize) -> Result<u32, OsonError> {
        match ty & 0x18 {
            0x00 => r.uint(1),
            0x08 => r.uint(2),
            0x10 => r.uint(4),
            _ => Err(OsonError::Invalid {
                what: "shared field ids pointing at a shared object",
                at,
            }),
        }
    }

    /// The byte an offset into the tree segment points at.
    fn tree_pos(&self, offset: u32, base: usize, at: usize) -> Result<usize, OsonError> {
        self.tree
            .checked_add(base)
            .and_then(|p| p.checked_add(offset as usize))
            .filter(|&p| p < self.b.len())
            .ok_or(OsonError::Invalid {
                what: "offset (past the end)",
                at,
            })
    }
}

/// Where a field-name segment's parts are and how wide they are.
struct NameSegment {
    count: u32,
    hash_len: usize,
    offset_len: usize,
    size: u32,
    /// Each name's length: one byte for short names, two for long ones.
    len_width: usize,
}
