//! Text fitted to the screen: display widths, cutting and wrapping,
//! short numbers and clock times.

use chrono::DateTime;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::format::thousands;

/// `line` broken into rows of `width` columns at spaces (inside a word
/// only when it is longer than a row), each row after the first indented
/// by `indent` columns so a wrapped alert reads as one entry.
pub(super) fn hang(line: Line<'static>, width: u16, indent: usize) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let indent = indent.min(width.saturating_sub(1));
    let cells: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let mut rows: Vec<Vec<(char, Style)>> = vec![Vec::new()];
    let mut used = 0;
    for cell in cells {
        let cw = char_width(cell.0);
        let row_start = if rows.len() == 1 { 0 } else { indent };
        if used + cw > width && used > row_start {
            let Some(row) = rows.last_mut() else { break };
            // Carry the word under way to the next row when a space allows.
            let carried = match row.iter().rposition(|(c, _)| *c == ' ') {
                Some(sp) if sp >= row_start && sp + 1 < row.len() => row.split_off(sp + 1),
                _ => Vec::new(),
            };
            let mut next: Vec<(char, Style)> = vec![(' ', Style::new()); indent];
            used = indent + carried.iter().map(|(c, _)| char_width(*c)).sum::<usize>();
            next.extend(carried);
            rows.push(next);
        }
        if let Some(row) = rows.last_mut() {
            row.push(cell);
        }
        used += cw;
    }
    rows.into_iter()
        .map(|row| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, style) in row {
                match spans.last_mut() {
                    Some(last) if last.style == style => last.content.to_mut().push(c),
                    _ => spans.push(Span::styled(c.to_string(), style)),
                }
            }
            Line::from(spans)
        })
        .collect()
}

/// `s` in exactly `w` terminal columns: padded, or cut with `…`. Control
/// characters (a newline inside a VARCHAR2) show as `·` so a value can never
/// break the grid; wide (CJK) characters count two columns.
pub(super) fn fit(s: &str, w: usize) -> String {
    let mut out = String::with_capacity(w);
    let mut used = 0;
    let total: usize = s.chars().map(char_width).sum();
    let budget = if total > w { w.saturating_sub(1) } else { w };
    for c in s.chars() {
        let cw = char_width(c);
        if used + cw > budget {
            break;
        }
        out.push(if c.is_control() { '·' } else { c });
        used += cw;
    }
    if total > w && w > 0 {
        out.push('…');
        used += 1;
    }
    out.extend(std::iter::repeat_n(' ', w.saturating_sub(used)));
    out
}

pub(super) fn char_width(c: char) -> usize {
    if c.is_control() {
        1
    } else {
        unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
    }
}

/// `s` cut into pieces of at most `w` terminal columns each (at least one).
pub(super) fn chunks(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = vec![String::new()];
    let mut used = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if used + cw > w {
            out.push(String::new());
            used = 0;
        }
        if let Some(last) = out.last_mut() {
            last.push(if c.is_control() { '·' } else { c });
        }
        used += cw;
    }
    out
}

/// `100000` as `100k`, `1000000` as `1M`; other values in full.
pub(super) fn compact(n: u64) -> String {
    match n {
        _ if n >= 1_000_000 && n.is_multiple_of(1_000_000) => format!("{}M", n / 1_000_000),
        _ if n >= 1_000 && n.is_multiple_of(1_000) => format!("{}k", n / 1_000),
        _ => thousands(n),
    }
}

pub(super) fn clock(ms: i64, dated: bool) -> String {
    let fmt = if dated { "%m-%d %H:%M:%S" } else { "%H:%M:%S" };
    DateTime::from_timestamp_millis(ms)
        .map(|d| d.format(fmt).to_string())
        .unwrap_or_else(|| "--:--:--".into())
}
