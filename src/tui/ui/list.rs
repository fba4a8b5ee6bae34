//! The change list, its columns by width, and the detail pane with the
//! before and after images.

use chrono::DateTime;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::engine::event::{CapturedEvent, ChangeEvent, FieldRef};

use crate::tui::app::App;
use crate::tui::entry::{changed_columns, Entry};
use crate::tui::format::thousands;

use super::text::{chunks, clock, fit};

pub(super) fn op_style(op: &str) -> Style {
    match op {
        "c" | "r" => Style::new().fg(Color::Green),
        "u" => Style::new().fg(Color::Yellow),
        "d" => Style::new().fg(Color::Red),
        _ => Style::new().fg(Color::Magenta),
    }
}

pub(super) fn commit_ms(e: &Entry) -> i64 {
    match &e.event {
        CapturedEvent::Change(c) => c.commit_ts_ms,
        CapturedEvent::Ddl(d) => d.commit_ts_ms,
    }
}

/// Whether the changes shown span more than one day: the TIME column then
/// carries the date, or 09:00 yesterday would read as this morning.
pub(super) fn spans_days(visible: &[&Entry]) -> bool {
    let day = |e: &&Entry| DateTime::from_timestamp_millis(commit_ms(e)).map(|d| d.date_naive());
    match (visible.first().map(day), visible.last().map(day)) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    }
}

/// The list's columns for a width: (name, width); the last fills.
pub(super) fn list_columns(width: u16, dated: bool, values: bool) -> Vec<(&'static str, usize)> {
    let mut cols = vec![("TIME", if dated { 14 } else { 8 }), ("COMMIT SCN", 12)];
    if width >= 110 {
        cols.push(("XID", 16));
    }
    cols.push(("OP", 3));
    cols.push(("TABLE", if width >= 110 { 24 } else { 16 }));
    cols.push(("KEY", if width >= 110 { 16 } else { 10 }));
    cols.push((if values { "CHANGED VALUES" } else { "CHANGED" }, 0));
    cols
}

/// From this width the list shows the changed columns with their values,
/// and the open transactions and per-table counts sit beside it.
pub(super) const WIDE: u16 = 160;

/// `STATUS=SHIPPED UPDATED_AT=…`: each changed column with its new value
/// (the old one for a delete).
pub(super) fn changed_values(e: &Entry) -> String {
    let CapturedEvent::Change(c) = &e.event else {
        return e.changed().to_string();
    };
    let image = c.after.as_ref().or(c.before.as_ref());
    changed_columns(c)
        .iter()
        .map(|col| {
            let v = image.and_then(|i| i.get(col));
            let text = match v {
                Some(FieldRef::Text(t) | FieldRef::Binary(t)) => t.to_string(),
                Some(FieldRef::Null) => "NULL".into(),
                Some(FieldRef::Unavailable | FieldRef::UnavailableBinary) => "?".into(),
                None => String::new(),
            };
            format!("{col}={text}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn entry_cells(e: &Entry, dated: bool, values: bool) -> Vec<String> {
    let src = e.event.source();
    vec![
        clock(commit_ms(e), dated),
        src.commit_scn.to_string(),
        src.xid.clone(),
        e.op_label().to_string(),
        format!("{}.{}", src.schema, src.table),
        e.key.clone(),
        if values {
            changed_values(e)
        } else {
            e.changed().to_string()
        },
    ]
}

pub(super) fn render_list(app: &App, visible: &[&Entry], area: Rect, buf: &mut Buffer) {
    let cap = app.config.ring_capacity;
    let title = match &app.filter {
        Some(f) => format!(
            " Changes matching “{}”: {} of {} kept ",
            f.text,
            thousands(visible.len() as u64),
            thousands(app.ring_len() as u64)
        ),
        None => format!(
            " Changes: {} kept of {} received ",
            thousands(app.ring_len().min(cap) as u64),
            thousands(app.received)
        ),
    };
    let mut block = Block::bordered().title(title);
    if app.paused {
        block = block
            .border_style(Style::new().fg(Color::Yellow))
            .title_top(
                Line::from(format!(
                    " PAUSED · {} new ",
                    thousands(app.pending_count() as u64)
                ))
                .right_aligned(),
            );
    } else if app.selected.is_none() {
        block = block.title_top(Line::from(" following ").right_aligned());
    }
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 0 {
        return;
    }
    let dated = spans_days(visible);
    // A wide terminal has room for the values, beside or below the list.
    let values = buf.area().width >= WIDE;
    let cols = list_columns(inner.width, dated, values);
    let fixed: usize = cols.iter().map(|(_, w)| w + 1).sum();
    let last_w = (inner.width as usize).saturating_sub(fixed);
    let width_of = |i: usize, w: usize| if i + 1 == cols.len() { last_w } else { w };
    let head: Vec<Span> = cols
        .iter()
        .enumerate()
        .map(|(i, (name, w))| {
            Span::styled(
                format!("{} ", fit(name, width_of(i, *w))),
                Style::new().add_modifier(Modifier::BOLD),
            )
        })
        .collect();
    buf.set_line(inner.x, inner.y, &Line::from(head), inner.width);
    let rows = (inner.height as usize).saturating_sub(1);
    if visible.is_empty() {
        let msg = if app.filter.is_some() {
            "no change matches the filter (/ to change it, / then Enter on an empty line to clear)"
        } else {
            "no change captured yet"
        };
        buf.set_line(
            inner.x,
            inner.y + 1,
            &Line::styled(msg, Style::new().fg(Color::Gray)),
            inner.width,
        );
        return;
    }
    let sel = app.selected_index(visible).unwrap_or(0);
    let top = if app.selected.is_none() {
        visible.len().saturating_sub(rows)
    } else {
        (sel - sel % rows.max(1)).min(visible.len().saturating_sub(rows))
    };
    let show_xid = inner.width >= 110;
    for (row, (i, e)) in visible.iter().enumerate().skip(top).take(rows).enumerate() {
        let cells = entry_cells(e, dated, values);
        let cells: Vec<&String> = cells
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != 2 || show_xid)
            .map(|(_, c)| c)
            .collect();
        let spans: Vec<Span> = cells
            .iter()
            .zip(cols.iter())
            .enumerate()
            .map(|(j, (text, (name, w)))| {
                let style = if *name == "OP" {
                    op_style(text)
                } else {
                    Style::new()
                };
                Span::styled(format!("{} ", fit(text, width_of(j, *w))), style)
            })
            .collect();
        let mut line = Line::from(spans);
        if i == sel {
            line = line.patch_style(Style::new().add_modifier(Modifier::REVERSED));
        }
        buf.set_line(inner.x, inner.y + 1 + row as u16, &line, inner.width);
    }
}

pub(super) fn field_span(f: Option<FieldRef<'_>>) -> Span<'static> {
    match f {
        None => Span::raw(""),
        Some(FieldRef::Null) => Span::styled("NULL", Style::new().fg(Color::DarkGray)),
        Some(FieldRef::Text(t) | FieldRef::Binary(t)) => Span::raw(t.to_string()),
        Some(FieldRef::Unavailable | FieldRef::UnavailableBinary) => {
            Span::styled("⟨unavailable⟩", Style::new().fg(Color::Magenta))
        }
    }
}

pub(super) fn render_detail(visible: &[&Entry], app: &App, area: Rect, buf: &mut Buffer) {
    let index = app.selected_index(visible);
    let Some(entry) = index.and_then(|i| visible.get(i).copied()) else {
        let block = Block::bordered().title(" Detail ");
        let inner = block.inner(area);
        block.render(area, buf);
        Paragraph::new("no change selected").render(inner, buf);
        return;
    };
    let src = entry.event.source();
    let title = format!(
        " {}.{} · {} · SCN {} · commit {} · XID {} ",
        src.schema,
        src.table,
        entry.op_label(),
        src.scn,
        src.commit_scn,
        src.xid
    );
    let position = format!(
        " {} of {} ",
        thousands(index.unwrap_or(0) as u64 + 1),
        thousands(visible.len() as u64)
    );
    let mut block = Block::bordered()
        .title(title)
        .title_bottom(Line::from(position));
    // DDL rows carry LogMiner's placeholder ROWID (all A's): no row to name.
    let row_id = match &entry.event {
        CapturedEvent::Change(_) => src
            .row_id
            .as_deref()
            .filter(|r| r.chars().any(|c| c != 'A')),
        CapturedEvent::Ddl(_) => None,
    };
    if let Some(r) = row_id {
        block = block.title_bottom(Line::from(format!(" row {r} ")).right_aligned());
    }
    let inner = block.inner(area);
    block.render(area, buf);
    match &entry.event {
        CapturedEvent::Ddl(d) => Paragraph::new(d.ddl.clone())
            .wrap(Wrap { trim: false })
            .render(inner, buf),
        CapturedEvent::Change(c) => render_images(c, entry, app, inner, buf),
    }
}

/// Before and after of every column, values in full (wrapped over as many
/// lines as they need), then the change's USERNAME and SQL_REDO.
pub(super) fn render_images(
    c: &ChangeEvent,
    entry: &Entry,
    app: &App,
    area: Rect,
    buf: &mut Buffer,
) {
    let changed = changed_columns(c);
    let mut columns: Vec<&str> = Vec::new();
    for img in [&c.before, &c.after].into_iter().flatten() {
        for (col, _) in img {
            if !columns.contains(&col) {
                columns.push(col);
            }
        }
    }
    let name_w = columns
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 30);
    let rest = (area.width as usize).saturating_sub(name_w + 4);
    let half = rest / 2;
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("  {} ", fit("COLUMN", name_w)), bold),
        Span::styled(format!("{} ", fit("BEFORE", half)), bold),
        Span::styled(fit("AFTER", half), bold),
    ])];
    for col in &columns {
        let is_changed = changed.iter().any(|c| c == col);
        let before = field_span(c.before.as_ref().and_then(|b| b.get(col)));
        let after = field_span(c.after.as_ref().and_then(|a| a.get(col)));
        let b = chunks(&before.content, half);
        let a = chunks(&after.content, half);
        for i in 0..b.len().max(a.len()) {
            let marker = if is_changed && i == 0 { "* " } else { "  " };
            let name = if i == 0 { col } else { "" };
            let mut line = Line::from(vec![
                Span::raw(format!("{marker}{} ", fit(name, name_w))),
                Span::styled(
                    format!("{} ", fit(b.get(i).map_or("", String::as_str), half)),
                    before.style,
                ),
                Span::styled(fit(a.get(i).map_or("", String::as_str), half), after.style),
            ]);
            if is_changed {
                line =
                    line.patch_style(Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD));
            }
            lines.push(line);
        }
    }
    // USERNAME and SQL_REDO come first, in full: a long statement pages
    // with PgDn like long values do, and nothing is cut.
    let gray = Style::new().fg(Color::Gray);
    let mut redo = Vec::new();
    match &entry.redo {
        Some(r) => {
            redo.push(Line::from(vec![
                Span::styled("  USERNAME ", bold),
                Span::raw(r.username.clone().unwrap_or_else(|| "(none)".into())),
                Span::styled("  SQL_REDO", bold),
            ]));
            let text = r.sql_redo.as_deref().unwrap_or("(none)");
            for piece in chunks(text, usize::from(area.width).saturating_sub(4)) {
                redo.push(Line::styled(format!("    {piece}"), gray));
            }
        }
        None => redo.push(Line::styled(
            "  USERNAME and SQL_REDO not received for this change",
            gray,
        )),
    }
    redo.extend(lines);
    let height = usize::from(area.height);
    if redo.len() <= height || height < 2 {
        app.detail_overflow.set(0);
        Paragraph::new(redo).render(area, buf);
        return;
    }
    // Too long for the pane: the last row says where the rest is.
    let rows = height - 1;
    let overflow = u16::try_from(redo.len() - rows).unwrap_or(u16::MAX);
    app.detail_overflow.set(overflow);
    let scroll = app.detail_scroll.min(overflow);
    let total = redo.len();
    let first = usize::from(scroll);
    let mut shown: Vec<Line> = redo.into_iter().skip(first).take(rows).collect();
    let last = first + shown.len();
    let below = total - last;
    let keys = match (scroll > 0, below > 0) {
        (true, true) => "PgUp PgDn",
        (false, _) => "PgDn",
        (true, false) => "PgUp",
    };
    shown.push(Line::styled(
        format!(
            "  lines {}–{} of {total}{} · {keys}",
            first + 1,
            last,
            if below > 0 {
                format!(", {below} below")
            } else {
                String::new()
            }
        ),
        Style::new().fg(Color::Cyan),
    ));
    Paragraph::new(shown).render(area, buf);
}
