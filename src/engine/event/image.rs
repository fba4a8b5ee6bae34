//! Row images: the column names and values of a change's before and after
//! state, in the table's column order.
//!
//! An image keeps the text of its names and values in one buffer shared
//! by reference count, and each column as a pair of byte ranges into it.
//! An image the parser builds uses the SQL_REDO statement itself as that
//! buffer (values whose canonical text differs from what LogMiner printed
//! are appended to it), so building one allocates a column list rather
//! than two strings per column, and an UPDATE's before and after images
//! share one statement. Images built from owned values (snapshot rows, the
//! simulator's ground truth, tests) append each name and value as pushed.
//!
//! Equality, hashing and `Debug` see names and values only: two images
//! with the same columns are equal whatever their buffers hold besides.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

use super::field::{Field, FieldRef};

/// A column's value as ranges into its image's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slot {
    Null,
    Text(Range<usize>),
    Binary(Range<usize>),
    Unavailable,
    UnavailableBinary,
}

/// One column: its name and value as ranges into the image's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Col {
    pub name: Range<usize>,
    pub value: Slot,
}

/// Column names and values of a row, in the table's column order.
#[derive(Clone, Default)]
pub struct Image {
    text: Arc<String>,
    cols: Vec<Col>,
}

impl Image {
    pub fn new() -> Image {
        Image::default()
    }

    /// An image over `text` whose columns the caller located in it. Every
    /// range must lie on character boundaries inside `text`; one that does
    /// not reads as empty text rather than failing.
    pub(crate) fn from_parts(text: Arc<String>, cols: Vec<Col>) -> Image {
        Image { text, cols }
    }

    pub fn len(&self) -> usize {
        self.cols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cols.is_empty()
    }

    fn str(&self, r: &Range<usize>) -> &str {
        self.text.get(r.clone()).unwrap_or_default()
    }

    fn field(&self, slot: &Slot) -> FieldRef<'_> {
        match slot {
            Slot::Null => FieldRef::Null,
            Slot::Text(r) => FieldRef::Text(self.str(r)),
            Slot::Binary(r) => FieldRef::Binary(self.str(r)),
            Slot::Unavailable => FieldRef::Unavailable,
            Slot::UnavailableBinary => FieldRef::UnavailableBinary,
        }
    }

    /// Names and values, in column order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            image: self,
            cols: self.cols.iter(),
        }
    }

    /// Whether column `i` of this image is column `i` of `other`, the same
    /// name and value over the same shared text (as an UPDATE's after image
    /// has the columns its SET left alone): then their JSON is the same too.
    pub(crate) fn shares_column(&self, other: &Image, i: usize) -> bool {
        self.shares_text(other)
            && matches!((self.cols.get(i), other.cols.get(i)), (Some(a), Some(b)) if a == b)
    }

    /// Bytes in the buffer holding the names and values: a bound, in
    /// constant time, on what they take written out (the buffer may hold
    /// more, such as the rest of the statement an image was parsed from).
    pub(crate) fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Whether the two images share their text (and so may share columns).
    pub(crate) fn shares_text(&self, other: &Image) -> bool {
        Arc::ptr_eq(&self.text, &other.text)
    }

    /// Column names, in column order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.cols.iter().map(|c| self.str(&c.name))
    }

    /// The value of `column`, when the image has it.
    pub fn get(&self, column: &str) -> Option<FieldRef<'_>> {
        self.position(column)
            .map(|i| self.field(&self.cols[i].value))
    }

    /// [`Image::get`] as an owned [`Field`].
    pub fn get_field(&self, column: &str) -> Option<Field> {
        self.get(column).map(FieldRef::to_field)
    }

    pub fn contains(&self, column: &str) -> bool {
        self.position(column).is_some()
    }

    fn position(&self, column: &str) -> Option<usize> {
        // Lengths first: most names differ in length, and slicing the
        // text checks character boundaries.
        self.cols
            .iter()
            .position(|c| c.name.len() == column.len() && self.str(&c.name) == column)
    }

    /// Appends `text` to the buffer (copying the buffer first when another
    /// image shares it) and returns where it went.
    fn append(&mut self, text: &str) -> Range<usize> {
        let buf = Arc::make_mut(&mut self.text);
        let start = buf.len();
        buf.push_str(text);
        start..buf.len()
    }

    fn slot_of(&mut self, field: FieldRef<'_>) -> Slot {
        match field {
            FieldRef::Null => Slot::Null,
            FieldRef::Text(t) => Slot::Text(self.append(t)),
            FieldRef::Binary(t) => Slot::Binary(self.append(t)),
            FieldRef::Unavailable => Slot::Unavailable,
            FieldRef::UnavailableBinary => Slot::UnavailableBinary,
        }
    }

    /// Adds a column at the end.
    pub fn push<'f>(&mut self, column: &str, field: impl Into<FieldRef<'f>>) {
        let name = self.append(column);
        let value = self.slot_of(field.into());
        self.cols.push(Col { name, value });
    }

    /// Sets `column` to `field`, appending the column when the image does
    /// not have it.
    pub fn set<'f>(&mut self, column: &str, field: impl Into<FieldRef<'f>>) {
        match self.position(column) {
            Some(i) => {
                let value = self.slot_of(field.into());
                self.cols[i].value = value;
            }
            None => self.push(column, field),
        }
    }

    /// Replaces each value by what `f` makes of it (`None` keeps it).
    pub fn update(&mut self, mut f: impl FnMut(&str, FieldRef<'_>) -> Option<Field>) {
        for i in 0..self.cols.len() {
            let name = self.str(&self.cols[i].name);
            if let Some(new) = f(name, self.field(&self.cols[i].value)) {
                let value = self.slot_of(new.as_ref());
                self.cols[i].value = value;
            }
        }
    }

    /// Keeps the columns `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&str, FieldRef<'_>) -> bool) {
        let cols = std::mem::take(&mut self.cols);
        self.cols = cols
            .into_iter()
            .filter(|c| keep(self.str(&c.name), self.field(&c.value)))
            .collect();
    }

    /// Puts the columns in name order (to compare images whose columns
    /// came in different orders, such as a value reassembled from LOB rows
    /// after the statement's own).
    pub fn sort_by_name(&mut self) {
        let mut cols = std::mem::take(&mut self.cols);
        cols.sort_by(|a, b| self.str(&a.name).cmp(self.str(&b.name)));
        self.cols = cols;
    }

    /// The columns as owned pairs.
    pub fn to_vec(&self) -> Vec<(String, Field)> {
        self.iter()
            .map(|(c, v)| (c.to_string(), v.to_field()))
            .collect()
    }
}

/// Iterator over an image's names and values.
pub struct Iter<'a> {
    image: &'a Image,
    cols: std::slice::Iter<'a, Col>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, FieldRef<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let c = self.cols.next()?;
        Some((self.image.str(&c.name), self.image.field(&c.value)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.cols.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Image {
    type Item = (&'a str, FieldRef<'a>);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<S: AsRef<str>> FromIterator<(S, Field)> for Image {
    fn from_iter<I: IntoIterator<Item = (S, Field)>>(iter: I) -> Image {
        let mut image = Image::new();
        for (c, v) in iter {
            image.push(c.as_ref(), &v);
        }
        image
    }
}

impl From<Vec<(String, Field)>> for Image {
    fn from(pairs: Vec<(String, Field)>) -> Image {
        pairs.into_iter().collect()
    }
}

/// For comparing with pairs written out, as tests do.
impl PartialEq<Vec<(String, Field)>> for Image {
    fn eq(&self, other: &Vec<(String, Field)>) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other)
                .all(|((c, v), (oc, ov))| c == oc && v == *ov)
    }
}

impl PartialEq for Image {
    fn eq(&self, other: &Image) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Image {}

impl Hash for Image {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for pair in self {
            pair.hash(state);
        }
    }
}

impl fmt::Debug for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(pairs: &[(&str, Field)]) -> Image {
        pairs.iter().map(|(c, v)| (*c, v.clone())).collect()
    }

    #[test]
    fn images_with_the_same_columns_are_equal_whatever_else_their_text_holds() {
        let text = Arc::new("IDxx1NAME".to_string());
        let parsed = Image::from_parts(
            text,
            vec![
                Col {
                    name: 0..2,
                    value: Slot::Text(4..5),
                },
                Col {
                    name: 5..9,
                    value: Slot::Null,
                },
            ],
        );
        let built = image(&[("ID", Field::text("1")), ("NAME", Field::Null)]);
        assert_eq!(parsed, built);
        let hash = |i: &Image| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            i.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&parsed), hash(&built));
        assert_ne!(built, image(&[("ID", Field::text("1"))]));
    }

    #[test]
    fn setting_a_column_of_a_shared_image_leaves_the_other_sharer_unchanged() {
        let before = image(&[("ID", Field::text("1")), ("NAME", Field::text("a"))]);
        let mut after = before.clone();
        after.set("NAME", &Field::text("b"));
        after.set("NEW", &Field::Unavailable);
        assert_eq!(before.get("NAME"), Some(FieldRef::Text("a")));
        assert_eq!(after.get("NAME"), Some(FieldRef::Text("b")));
        assert_eq!(after.get("NEW"), Some(FieldRef::Unavailable));
        assert_eq!(after.names().collect::<Vec<_>>(), ["ID", "NAME", "NEW"]);
    }

    #[test]
    fn update_and_retain_see_each_column_once_in_order() {
        let mut img = image(&[
            ("A", Field::text("0A")),
            ("B", Field::Null),
            ("C", Field::text("x")),
        ]);
        img.update(|c, v| (c == "A").then(|| v.to_field().into_binary()));
        img.retain(|c, _| c != "B");
        assert_eq!(
            img.to_vec(),
            vec![
                ("A".to_string(), Field::Binary("0a".into())),
                ("C".to_string(), Field::text("x")),
            ]
        );
    }

    #[test]
    fn a_range_outside_the_text_reads_as_empty_text_not_a_panic() {
        let img = Image::from_parts(
            Arc::new("ID".to_string()),
            vec![Col {
                name: 0..2,
                value: Slot::Text(5..9),
            }],
        );
        assert_eq!(img.get("ID"), Some(FieldRef::Text("")));
    }
}
