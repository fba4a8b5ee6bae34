//! One column value of a before or after image, owned ([`Field`]) and
//! borrowed from an image ([`FieldRef`]), and the placeholder written for a
//! value the source could not show.

/// What Debezium emits for a value the source could not provide.
pub const UNAVAILABLE_VALUE: &str = "__debezium_unavailable_value";

/// One column value of a before or after image.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Field {
    Null,
    /// The value's canonical text (see the module docs).
    Text(String),
    /// Bytes of a RAW or BLOB column, as lower-case hex; written in the
    /// chosen [`BinaryHandling`].
    Binary(String),
    /// LogMiner could not show it (`Unsupported Type`, a LOB not yet written).
    Unavailable,
    /// Like [`Field::Unavailable`], in a binary column: the placeholder is
    /// written as bytes, so a consumer decoding the column as binary reads
    /// it (Debezium does the same).
    UnavailableBinary,
}

impl Field {
    pub fn text(s: impl Into<String>) -> Self {
        Field::Text(s.into())
    }

    /// The canonical text (hex for binary values).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Field::Text(s) | Field::Binary(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_unavailable(&self) -> bool {
        matches!(self, Field::Unavailable | Field::UnavailableBinary)
    }

    /// The same value known to belong to a binary (RAW, LONG RAW, BLOB)
    /// column: text becomes bytes (it is the hex LogMiner printed) and the
    /// placeholder becomes the binary placeholder.
    pub fn into_binary(self) -> Field {
        match self {
            Field::Text(hex) if is_hex(&hex) => Field::Binary(hex.to_ascii_lowercase()),
            Field::Unavailable => Field::UnavailableBinary,
            other => other,
        }
    }
}

fn is_hex(s: &str) -> bool {
    s.len().is_multiple_of(2) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A column value borrowed from an [`Image`](super::Image): [`Field`] without owning
/// its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldRef<'a> {
    Null,
    /// The value's canonical text.
    Text(&'a str),
    /// Bytes of a RAW or BLOB column, as lower-case hex.
    Binary(&'a str),
    Unavailable,
    UnavailableBinary,
}

impl<'a> FieldRef<'a> {
    /// The canonical text (hex for binary values).
    pub fn as_str(self) -> Option<&'a str> {
        match self {
            FieldRef::Text(s) | FieldRef::Binary(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_unavailable(self) -> bool {
        matches!(self, FieldRef::Unavailable | FieldRef::UnavailableBinary)
    }

    pub fn to_field(self) -> Field {
        match self {
            FieldRef::Null => Field::Null,
            FieldRef::Text(s) => Field::Text(s.to_string()),
            FieldRef::Binary(s) => Field::Binary(s.to_string()),
            FieldRef::Unavailable => Field::Unavailable,
            FieldRef::UnavailableBinary => Field::UnavailableBinary,
        }
    }
}

impl Field {
    /// The field borrowed, as an [`Image`](super::Image) hands its values out.
    pub fn as_ref(&self) -> FieldRef<'_> {
        match self {
            Field::Null => FieldRef::Null,
            Field::Text(s) => FieldRef::Text(s),
            Field::Binary(s) => FieldRef::Binary(s),
            Field::Unavailable => FieldRef::Unavailable,
            Field::UnavailableBinary => FieldRef::UnavailableBinary,
        }
    }
}

impl<'a> From<&'a Field> for FieldRef<'a> {
    fn from(f: &'a Field) -> Self {
        f.as_ref()
    }
}

impl PartialEq<Field> for FieldRef<'_> {
    fn eq(&self, other: &Field) -> bool {
        *self == other.as_ref()
    }
}

impl PartialEq<FieldRef<'_>> for Field {
    fn eq(&self, other: &FieldRef<'_>) -> bool {
        self.as_ref() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_column_turns_hex_text_into_bytes_and_leaves_other_text_alone() {
        assert_eq!(
            Field::text("A5ff").into_binary(),
            Field::Binary("a5ff".into())
        );
        assert_eq!(Field::Unavailable.into_binary(), Field::UnavailableBinary);
        assert_eq!(Field::text("not hex").into_binary(), Field::text("not hex"));
        assert_eq!(Field::Null.into_binary(), Field::Null);
    }
}
