//! Statements whose string literals hold a quote LogMiner did not double
//! (`--relaxed-quotes`). Such a literal's end is ambiguous; the statement's
//! shape resolves it: an INSERT declares how many values follow, and every
//! SET and WHERE term starts with a column name. A literal may end only at
//! a quote after which the rest of the statement parses, exactly one
//! reading must remain, and each value so recovered is named, so the caller
//! can raise a finding. Runs only after the strict parser failed.

use std::borrow::Cow;
use std::collections::HashMap;

use memchr::memchr_iter;

use super::scan::{Fail, Res, Scanner};
use super::{
    column, insert_columns, new_statement, qualifier, table_alias, table_name, DmlKind, Statement,
    Value,
};

/// Search steps before the statement counts as too ambiguous to resolve.
const STEP_LIMIT: usize = 200_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum List {
    Values { count: usize },
    Set,
    Where,
}

#[derive(Debug, Clone, Copy)]
enum Next {
    Entry(List, usize, usize),
    Done,
}

#[derive(Clone, Copy)]
enum Target<'a> {
    Column(&'a str),
    RowId,
}

/// One way an entry can be read: what it sets, to what, and where the
/// statement goes on.
struct Reading<'a> {
    target: Target<'a>,
    value: Value<'a>,
    recovered: bool,
    next: Next,
}

struct Solver<'a> {
    src: &'a str,
    alias: Option<&'a str>,
    columns: Vec<&'a str>,
    /// Readings of the rest of the statement from a list entry, capped at 2.
    memo: HashMap<(List, usize, usize), u8>,
    steps: usize,
}

/// Parses `sql` reading unescaped quotes inside string values; returns the
/// statement and the columns whose value was recovered.
pub(super) fn parse_relaxed(sql: &str) -> Res<(Statement<'_>, Vec<&str>)> {
    let mut s = Scanner::new(sql);
    s.skip_ws();
    let mut columns = Vec::new();
    let (kind, schema, table, alias, list) = if s.keyword(b"INSERT") {
        s.expect_keyword(b"INTO", "after `insert`")?;
        let (schema, table) = table_name(&mut s)?;
        columns = insert_columns(&mut s)?;
        let count = columns.len();
        (
            DmlKind::Insert,
            schema,
            table,
            None,
            Some(List::Values { count }),
        )
    } else if s.keyword(b"UPDATE") {
        let (schema, table) = table_name(&mut s)?;
        let alias = table_alias(&mut s, b"SET");
        s.expect_keyword(b"SET", "after the table name")?;
        (DmlKind::Update, schema, table, alias, Some(List::Set))
    } else if s.keyword(b"DELETE") {
        s.expect_keyword(b"FROM", "after `delete`")?;
        let (schema, table) = table_name(&mut s)?;
        let alias = table_alias(&mut s, b"WHERE");
        let list = s.keyword(b"WHERE").then_some(List::Where);
        (DmlKind::Delete, schema, table, alias, list)
    } else {
        return s.fail("expected `insert`, `update` or `delete` at the start of the statement");
    };
    let mut stmt = new_statement(kind, schema, table, Vec::new());
    let mut recovered = Vec::new();
    let Some(list) = list else {
        s.eat(b';');
        return if s.at_end() {
            Ok((stmt, recovered))
        } else {
            s.fail("unexpected text after the end of the statement")
        };
    };
    let mut solver = Solver {
        src: sql,
        alias,
        columns,
        memo: HashMap::new(),
        steps: 0,
    };
    match solver.count(list, s.pos, 0)? {
        0 => s.fail("no reading of its quotes makes the statement whole"),
        1 => {
            solver.build(list, s.pos, 0, &mut stmt, &mut recovered)?;
            Ok((stmt, recovered))
        }
        _ => s.fail(
            "its quotes can be read more than one way (a value holds what looks like the \
             boundary between two values)",
        ),
    }
}

/// `a'b''c` → `a'b'c`: doubled quotes are LogMiner's escapes, a lone one
/// is text it did not escape.
fn unescape(body: &str) -> (String, bool) {
    let mut out = String::with_capacity(body.len());
    let mut lone = false;
    let mut rest = body;
    while let Some(q) = rest.find('\'') {
        out.push_str(&rest[..=q]);
        if rest.as_bytes().get(q + 1) == Some(&b'\'') {
            rest = &rest[q + 2..];
        } else {
            lone = true;
            rest = &rest[q + 1..];
        }
    }
    out.push_str(rest);
    (out, lone)
}

fn statement_end(t: &mut Scanner<'_>) -> bool {
    t.eat(b';');
    t.at_end()
}

impl<'a> Solver<'a> {
    fn key(list: List, pos: usize, idx: usize) -> (List, usize, usize) {
        match list {
            List::Values { .. } => (list, pos, idx),
            List::Set | List::Where => (list, pos, 0),
        }
    }

    fn count(&mut self, list: List, pos: usize, idx: usize) -> Res<u8> {
        let key = Self::key(list, pos, idx);
        if let Some(&n) = self.memo.get(&key) {
            return Ok(n);
        }
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return Err(Fail {
                message: "too many ways to read its quotes".into(),
                position: pos,
            });
        }
        let mut n = 0u8;
        for r in self.readings(list, pos, idx) {
            n = n.saturating_add(match r.next {
                Next::Done => 1,
                Next::Entry(l, p, i) => self.count(l, p, i)?,
            });
            if n >= 2 {
                break;
            }
        }
        let n = n.min(2);
        self.memo.insert(key, n);
        Ok(n)
    }

    fn build(
        &mut self,
        list: List,
        pos: usize,
        idx: usize,
        stmt: &mut Statement<'a>,
        recovered: &mut Vec<&'a str>,
    ) -> Res<()> {
        for r in self.readings(list, pos, idx) {
            let fits = match r.next {
                Next::Done => true,
                Next::Entry(l, p, i) => self.count(l, p, i)? > 0,
            };
            if !fits {
                continue;
            }
            match r.target {
                Target::RowId => {
                    stmt.row_id = r.value.canonical().map(|c| Cow::Owned(c.into_owned()))
                }
                Target::Column(c) => {
                    if r.recovered {
                        recovered.push(c);
                    }
                    match list {
                        List::Where => stmt.matched.push((c, r.value)),
                        List::Values { .. } | List::Set => stmt.assigned.push((c, r.value)),
                    }
                }
            }
            return match r.next {
                Next::Done => Ok(()),
                Next::Entry(l, p, i) => self.build(l, p, i, stmt, recovered),
            };
        }
        Err(Fail {
            message: "no reading of its quotes makes the statement whole".into(),
            position: pos,
        })
    }

    /// Every way the entry at `pos` can be read and followed.
    fn readings(&self, list: List, pos: usize, idx: usize) -> Vec<Reading<'a>> {
        let mut s = Scanner::new(self.src);
        s.pos = pos;
        let target = match list {
            List::Values { .. } => match self.columns.get(idx) {
                Some(c) => Target::Column(c),
                None => return Vec::new(),
            },
            List::Set => match column(&mut s, self.alias, "") {
                Ok(c) if s.eat(b'=') => Target::Column(c),
                _ => return Vec::new(),
            },
            List::Where => {
                if qualifier(&mut s, self.alias).is_err() {
                    return Vec::new();
                }
                if s.keyword(b"ROWID") {
                    if !s.eat(b'=') {
                        return Vec::new();
                    }
                    Target::RowId
                } else {
                    let Ok(c) = s.quoted_ident("") else {
                        return Vec::new();
                    };
                    if s.keyword(b"IS") {
                        if !s.keyword(b"NULL") {
                            return Vec::new();
                        }
                        return self
                            .follow(list, s, idx)
                            .map(|next| Reading {
                                target: Target::Column(c),
                                value: Value::Null,
                                recovered: false,
                                next,
                            })
                            .into_iter()
                            .collect();
                    }
                    if !s.eat(b'=') {
                        return Vec::new();
                    }
                    Target::Column(c)
                }
            }
        };
        // A ROWID is a string literal, as the strict parser takes it: no
        // other value form may stand for it.
        let quoted = {
            let mut t = Scanner::new(self.src);
            t.pos = s.pos;
            t.skip_ws();
            t.peek() == Some(b'\'')
        };
        if matches!(target, Target::RowId) && !quoted {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (value, recovered, end) in self.values(s, list) {
            // A ROWID is base-64 text: a quote is never part of it.
            if recovered && matches!(target, Target::RowId) {
                continue;
            }
            let mut t = Scanner::new(self.src);
            t.pos = end;
            if let Some(next) = self.follow(list, t, idx) {
                out.push(Reading {
                    target,
                    value,
                    recovered,
                    next,
                });
            }
        }
        out
    }

    /// The values that may start at the cursor: the strict reading, and for
    /// a string literal every later quote as its possible end.
    fn values(&self, mut s: Scanner<'a>, list: List) -> Vec<(Value<'a>, bool, usize)> {
        s.skip_ws();
        let start = s.pos;
        let mut out = Vec::new();
        let mut strict = Scanner::new(self.src);
        strict.pos = start;
        if let Ok(v) = strict.value() {
            out.push((v, false, strict.pos));
        }
        if s.peek() != Some(b'\'') {
            return out;
        }
        let body_at = start + 1;
        for off in memchr_iter(b'\'', &self.src.as_bytes()[body_at..]) {
            let end = body_at + off + 1;
            // Without a lone quote the literal reads as the strict parser
            // read it (or failed to).
            let (text, lone) = unescape(&self.src[body_at..end - 1]);
            if lone {
                out.push((Value::Text(Cow::Owned(text)), true, end));
            }
            // A SET or WHERE value never runs past the start of the next
            // term: `' , "C" =`, `' and "C" =`, `' where ROWID`.
            if matches!(list, List::Set | List::Where) && self.term_follows(end) {
                break;
            }
        }
        out
    }

    /// Whether a new SET or WHERE term starts after the quote ending at
    /// `end`: a separator, then a column (or ROWID) and its operator.
    fn term_follows(&self, end: usize) -> bool {
        let mut t = Scanner::new(self.src);
        t.pos = end;
        if !(t.eat(b',') || t.keyword(b"AND") || t.keyword(b"WHERE")) {
            return false;
        }
        if qualifier(&mut t, self.alias).is_err() {
            return false;
        }
        if t.keyword(b"ROWID") {
            return t.eat(b'=');
        }
        t.quoted_ident("").is_ok() && (t.eat(b'=') || t.keyword(b"IS"))
    }

    /// Where the statement goes on after an entry that ends at the cursor.
    fn follow(&self, list: List, mut t: Scanner<'a>, idx: usize) -> Option<Next> {
        match list {
            List::Values { count } if idx + 1 < count => {
                t.eat(b',').then_some(Next::Entry(list, t.pos, idx + 1))
            }
            List::Values { .. } => (t.eat(b')') && statement_end(&mut t)).then_some(Next::Done),
            List::Set if t.eat(b',') => Some(Next::Entry(List::Set, t.pos, 0)),
            List::Set if t.keyword(b"WHERE") => Some(Next::Entry(List::Where, t.pos, 0)),
            List::Where if t.keyword(b"AND") => Some(Next::Entry(List::Where, t.pos, 0)),
            List::Set | List::Where => statement_end(&mut t).then_some(Next::Done),
        }
    }
}
