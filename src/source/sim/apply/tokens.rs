//! The words of one statement: bare words upper-cased (as Oracle folds
//! them), quoted names as written, string literals with their quotes, and
//! punctuation one character each.

use crate::source::TableName;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Quoted(String),
    Literal(String),
    Punct(char),
}

/// A cursor over a statement's tokens.
pub struct Tokens {
    toks: Vec<Tok>,
    at: usize,
}

impl Tokens {
    pub fn new(text: &str) -> Self {
        Tokens {
            toks: lex(text),
            at: 0,
        }
    }

    fn text(t: &Tok) -> String {
        match t {
            Tok::Word(w) | Tok::Quoted(w) | Tok::Literal(w) => w.clone(),
            Tok::Punct(c) => c.to_string(),
        }
    }

    /// The next token as text, consumed.
    pub fn next(&mut self) -> Option<String> {
        let t = self.toks.get(self.at).map(Self::text);
        if t.is_some() {
            self.at += 1;
        }
        t
    }

    /// The first word of the statement (not consumed).
    pub fn peek_word(&self) -> String {
        self.toks.first().map(Self::text).unwrap_or_default()
    }

    pub fn second_word(&self) -> String {
        self.toks.get(1).map(Self::text).unwrap_or_default()
    }

    /// Consumes `kw` (a bare word or punctuation) if it comes next.
    pub fn eat(&mut self, kw: &str) -> bool {
        let hit = match self.toks.get(self.at) {
            Some(Tok::Word(w)) => w == kw,
            Some(Tok::Punct(c)) => kw.len() == 1 && kw.starts_with(*c),
            _ => false,
        };
        if hit {
            self.at += 1;
        }
        hit
    }

    /// Consumes all of `kws` if they come next in that order, else nothing.
    pub fn eat_seq(&mut self, kws: &[&str]) -> bool {
        let at = self.at;
        if kws.iter().all(|k| self.eat(k)) {
            return true;
        }
        self.at = at;
        false
    }

    pub fn at_end(&self) -> bool {
        self.at >= self.toks.len()
    }

    /// A name: a bare word (folded) or a quoted one (as written).
    pub fn next_name(&mut self) -> String {
        match self.toks.get(self.at) {
            Some(Tok::Word(w) | Tok::Quoted(w)) => {
                self.at += 1;
                w.clone()
            }
            _ => String::new(),
        }
    }

    /// `OWNER.TABLE` (or a bare name, owner empty).
    pub fn next_table(&mut self) -> TableName {
        let first = self.next_name();
        if self.eat(".") {
            TableName {
                owner: first,
                table: self.next_name(),
            }
        } else {
            TableName {
                owner: String::new(),
                table: first,
            }
        }
    }

    pub fn at_word(&self, words: &[&str]) -> bool {
        matches!(self.toks.get(self.at), Some(Tok::Word(w)) if words.contains(&w.as_str()))
    }

    /// Skips tokens up to (not including) one of `words`, or to the end.
    pub fn skip_until(&mut self, words: &[&str]) {
        while !self.at_end() && !self.at_word(words) {
            self.at += 1;
        }
    }

    /// Words separated by commas, up to (not including) one of `stops`;
    /// an item of several words is joined by single spaces.
    pub fn list_until(&mut self, stops: &[&str]) -> Vec<String> {
        let mut items = Vec::new();
        let mut item: Vec<String> = Vec::new();
        while !self.at_end() {
            if self.at_word(stops) {
                break;
            }
            match self.next() {
                Some(s) if s == "," => items.push(std::mem::take(&mut item).join(" ")),
                Some(s) => item.push(s),
                None => break,
            }
        }
        if !item.is_empty() {
            items.push(item.join(" "));
        }
        items
    }

    /// The tokens inside the parentheses that come next, as text; `None`
    /// without a `(`.
    pub fn parenthesised(&mut self) -> Option<Vec<String>> {
        if !self.eat("(") {
            return None;
        }
        let mut depth = 1;
        let mut inner = Vec::new();
        while let Some(tok) = self.toks.get(self.at).cloned() {
            self.at += 1;
            match tok {
                Tok::Punct('(') => depth += 1,
                Tok::Punct(')') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(inner);
                    }
                }
                _ => {}
            }
            inner.push(Self::text(&tok));
        }
        Some(inner)
    }
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || "_$#&".contains(c)
}

fn lex(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c == '\'' || c == '"' {
            let mut s = String::new();
            while let Some(x) = chars.next() {
                if x == c {
                    // A doubled quote is one quote inside the text.
                    if chars.peek() == Some(&c) {
                        chars.next();
                        s.push(c);
                        continue;
                    }
                    break;
                }
                s.push(x);
            }
            out.push(if c == '"' {
                Tok::Quoted(s)
            } else {
                Tok::Literal(format!("'{}'", s.replace('\'', "''")))
            });
        } else if word_char(c) {
            let mut w = c.to_string();
            while let Some(&x) = chars.peek().filter(|x| word_char(**x)) {
                w.push(x);
                chars.next();
            }
            out.push(Tok::Word(w.to_ascii_uppercase()));
        } else {
            out.push(Tok::Punct(c));
        }
    }
    out
}
