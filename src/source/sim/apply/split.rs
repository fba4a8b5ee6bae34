//! Cuts a SQL*Plus script into the statements SQL*Plus would send: `--`
//! comments and blank lines dropped, SQL ending at `;`, PL/SQL blocks
//! ending at a `/` line, and SQL*Plus commands (WHENEVER, SET, ACCEPT,
//! SHUTDOWN, STARTUP, EXIT, ...) ending at their line.

/// One statement of a script, with the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub line: usize,
    /// The statement without its terminator, whitespace collapsed outside quotes.
    pub text: String,
}

/// SQL*Plus commands: one line each, the `;` optional.
const SQLPLUS_COMMANDS: &[&str] = &[
    "WHENEVER", "SET", "ACCEPT", "PROMPT", "SPOOL", "SHUTDOWN", "STARTUP", "EXIT", "QUIT",
    "CONNECT", "CONN", "DEFINE", "EXEC", "EXECUTE", "REM", "REMARK",
];

/// The statements of `script`, in order.
pub fn statements(script: &str) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let mut block = false;
    for (n, raw) in script.lines().enumerate() {
        let line = strip_comment(raw);
        let trimmed = line.trim();
        if current.is_empty() {
            if trimmed.is_empty() {
                continue;
            }
            start = n + 1;
            let first = first_word(trimmed);
            if SQLPLUS_COMMANDS.contains(&first.as_str()) {
                push(&mut out, start, trimmed.trim_end_matches(';'));
                continue;
            }
            block = first == "BEGIN" || first == "DECLARE";
        }
        if block {
            if trimmed == "/" {
                push(&mut out, start, current.trim().trim_end_matches(';'));
                current.clear();
                block = false;
            } else {
                current.push_str(line);
                current.push('\n');
            }
            continue;
        }
        if trimmed == "/" {
            // A `/` after a statement ended with `;` runs the buffer again in
            // SQL*Plus; alone it ends the statement that has no `;`.
            if !current.trim().is_empty() {
                push(&mut out, start, current.trim());
                current.clear();
            }
            continue;
        }
        current.push_str(line);
        current.push('\n');
        if trimmed.ends_with(';') {
            push(&mut out, start, current.trim().trim_end_matches(';'));
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        push(&mut out, start, current.trim().trim_end_matches(';'));
    }
    out
}

fn push(out: &mut Vec<Statement>, line: usize, text: &str) {
    out.push(Statement {
        line,
        text: collapse(text),
    });
}

/// The first word, upper-cased.
pub fn first_word(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == ';' || c == '(')
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// The line without a `--` comment that is outside quotes.
pub fn strip_comment(line: &str) -> &str {
    split_comment(line).0
}

/// The code of a line and the `--` comment after it (outside quotes).
pub fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if line[i..].starts_with("--") => {
                return (&line[..i], Some(line[i + 2..].trim()));
            }
            None => {}
        }
    }
    (line, None)
}

/// Whitespace runs outside quotes become one space.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut space = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c.is_whitespace() => space = true,
            None => {
                if space && !out.is_empty() {
                    out.push(' ');
                }
                space = false;
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}
