//! Draws the whole `tail` screen from `&App`: header, lag gauges, the stats
//! row, the mined-logs line, the change list with its detail pane, alerts
//! and the status line, plus the help overlay. Layout adapts to the size;
//! nothing here changes state.

use chrono::DateTime;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};
use ratatui::Frame;

use crate::engine::event::{CapturedEvent, ChangeEvent, FieldRef};
use crate::engine::metrics::MiningState;

use super::app::{changed_columns, time_lag_s, Alert, AlertKind, App, Entry, Level, Mode};
use super::txns::TxnRow;
use super::widgets::{
    duration_s, thousands, CountsPanel, LagGauge, LogsLine, ThroughputPanel, TxPanel,
};

/// Draws the screen into a frame.
pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    render(app, area, frame.buffer_mut());
}

/// The smallest screen that still shows a few changes under the gauges.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Below this height the gauges and the stats take one line each, so the
/// change list and the alerts keep the room.
const COMPACT_BELOW: u16 = 30;

/// Draws the screen into any buffer area.
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        Paragraph::new(format!(
            "terminal too small (need {MIN_WIDTH}×{MIN_HEIGHT}, have {}×{}): \
             enlarge it, or press q to quit",
            area.width, area.height
        ))
        .wrap(Wrap { trim: true })
        .render(area, buf);
        return;
    }
    let alerts_h = alerts_height(app, area);
    let compact = area.height < COMPACT_BELOW;
    // On a short terminal the detail pane takes the stats row and the whole
    // list area: j/k still move through the changes.
    let cramped_detail = app.show_detail && area.height < 32;
    let stats_h = match area.height {
        _ if cramped_detail => 0,
        _ if compact => 1,
        36.. => 7,
        _ => 6,
    };
    let [header, gauges, stats, logs, snapshot, list, alerts, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(if compact { 2 } else { 3 }),
        Constraint::Length(stats_h),
        Constraint::Length(1),
        Constraint::Length(u16::from(app.snapshot.is_some())),
        Constraint::Min(3),
        Constraint::Length(alerts_h),
        Constraint::Length(1),
    ])
    .areas(area);
    render_header(app, header, buf);
    render_gauges(app, gauges, buf);
    match stats.height {
        0 => {}
        1 => render_stats_line(app, stats, buf),
        _ => render_stats(app, stats, buf),
    }
    LogsLine {
        status: &app.status,
    }
    .render(logs, buf);
    if let Some(p) = &app.snapshot {
        let line = Line::from(vec![
            Span::styled(
                " SNAPSHOT ",
                Style::new()
                    .fg(Color::Black)
                    .bg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!(" {}", p.summary())),
        ]);
        buf.set_line(snapshot.x, snapshot.y, &line, snapshot.width);
    }
    if let Some(fatal) = app.fatal_error() {
        // Capture stopped: the error is what the operator must read now.
        render_stopped(fatal, list, buf);
    } else if cramped_detail {
        render_detail(&app.visible(), app, list, buf);
    } else if app.show_detail {
        let wide = list.width >= 160;
        let [top, bottom] = if wide {
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(list)
        } else {
            Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(list)
        };
        let visible = app.visible();
        render_list(app, &visible, top, buf);
        render_detail(&visible, app, bottom, buf);
    } else if list.width >= WIDE {
        let [left, side] =
            Layout::horizontal([Constraint::Min(80), Constraint::Length(SIDE_WIDTH)]).areas(list);
        render_list(app, &app.visible(), left, buf);
        render_side(app, side, buf);
    } else {
        render_list(app, &app.visible(), list, buf);
    }
    render_alerts(app, alerts, buf);
    render_status_line(app, status, buf);
    if app.mode == Mode::Help {
        render_help(area, buf);
    }
    if app.mode == Mode::Transactions {
        render_transactions(app, area, buf);
    }
}

/// The side panel of a wide screen.
const SIDE_WIDTH: u16 = 74;

/// Beside the list on a wide screen: the open transactions (who holds
/// them, what capture buffers) over the changes counted per table.
fn render_side(app: &App, area: Rect, buf: &mut Buffer) {
    let rows = app.open_rows();
    let tables_h = (app.per_table.len() as u16 + 2).clamp(3, area.height / 2);
    let [txns, tables] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(tables_h)]).areas(area);
    let block = Block::bordered().title(format!(
        " Open transactions: {} (t: full list) ",
        thousands(rows.len() as u64)
    ));
    let inner = block.inner(txns);
    block.render(txns, buf);
    Paragraph::new(txn_table(app, &rows, inner.width, true)).render(inner, buf);
    let block = Block::bordered().title(" Changes per table ");
    let inner = block.inner(tables);
    block.render(tables, buf);
    let mut counts: Vec<(&String, &u64)> = app.per_table.iter().collect();
    counts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let name_w = usize::from(inner.width).saturating_sub(12);
    let lines: Vec<Line> = counts
        .into_iter()
        .map(|(t, n)| Line::raw(format!("{} {:>11}", fit(t, name_w), thousands(*n))))
        .collect();
    Paragraph::new(lines).render(inner, buf);
}

/// `line` broken into rows of `width` columns at spaces (inside a word
/// only when it is longer than a row), each row after the first indented
/// by `indent` columns so a wrapped alert reads as one entry.
fn hang(line: Line<'static>, width: u16, indent: usize) -> Vec<Line<'static>> {
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

/// The lines of one alert: what happened, then what to do.
fn alert_lines(a: &Alert) -> Vec<Line<'static>> {
    let mut lines = vec![alert_line(a)];
    if let Some(advice) = &a.advice {
        lines.push(Line::from(vec![
            Span::styled("  → ", Style::new().fg(Color::Cyan)),
            Span::styled(advice.clone(), Style::new().fg(Color::Cyan)),
        ]));
    }
    lines
}

/// Columns a wrapped alert row is indented by: past the tag (`▲ finding`).
const ALERT_INDENT: usize = 4;

fn alerts_height(app: &App, area: Rect) -> u16 {
    if app.alerts.is_empty() {
        return 1;
    }
    let inner_w = area.width.saturating_sub(2);
    let rows = app
        .alerts
        .iter()
        .flat_map(alert_lines)
        .map(|l| hang(l, inner_w, ALERT_INDENT).len())
        .sum::<usize>();
    let want = u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2);
    want.min((area.height / 4).max(4))
}

fn state_badge(app: &App) -> Span<'static> {
    let bold = Modifier::BOLD;
    let (text, color) = match &app.status.state {
        _ if app.engine_stopped
            && !matches!(
                app.status.state,
                MiningState::Finished | MiningState::Stopped { .. }
            ) =>
        {
            ("STOPPED".to_string(), Color::Red)
        }
        MiningState::Connecting => ("CONNECTING".to_string(), Color::Yellow),
        MiningState::Mining => ("MINING".to_string(), Color::Green),
        MiningState::Idle => ("IDLE (caught up)".to_string(), Color::Green),
        MiningState::Retrying { attempt, .. } => {
            (format!("RETRYING (attempt {attempt})"), Color::Yellow)
        }
        MiningState::Stopped { .. } => ("STOPPED".to_string(), Color::Red),
        MiningState::Finished => ("FINISHED".to_string(), Color::Blue),
    };
    Span::styled(
        format!(" ● {text} "),
        Style::new().fg(color).add_modifier(bold),
    )
}

fn render_header(app: &App, area: Rect, buf: &mut Buffer) {
    let h = &app.header;
    let sep = Span::styled(" │ ", Style::new().fg(Color::DarkGray));
    // Parts in the order shown, with the priority to keep them when the
    // line is too narrow (the version goes first, the tables last).
    let parts = [
        (&h.source, Style::new().add_modifier(Modifier::BOLD), 0),
        (&h.version, Style::new(), 3),
        (&h.container, Style::new(), 1),
        (&h.user, Style::new(), 2),
        (&h.tables, Style::new().fg(Color::Cyan), 0),
    ];

    let mut right = Vec::new();
    if h.simulator.is_some() {
        right.push(Span::styled(
            " SIMULATOR ",
            Style::new()
                .fg(Color::Black)
                .bg(Color::Magenta)
                .add_modifier(Modifier::BOLD),
        ));
    }
    if app.paused {
        right.push(Span::styled(
            " PAUSED ",
            Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
    }
    if let Some(age) = app.stale_for() {
        right.push(Span::styled(
            format!(" no status for {} ", duration_s(age.as_secs())),
            Style::new().fg(Color::Yellow),
        ));
    }
    right.push(state_badge(app));
    let right = Line::from(right);
    let rw = (right.width() as u16).min(area.width);
    let room = usize::from(area.width - rw);
    let mut drop_from = 4;
    let left = loop {
        let mut left = vec![Span::styled(
            " cdcctl tail ",
            Style::new()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
        )];
        for (text, style, prio) in &parts {
            if text.is_empty() || *prio >= drop_from {
                continue;
            }
            left.push(if left.len() == 1 {
                Span::raw(" ")
            } else {
                sep.clone()
            });
            left.push(Span::styled((*text).clone(), *style));
        }
        let line = Line::from(left);
        if line.width() < room || drop_from <= 1 {
            break line;
        }
        drop_from -= 1;
    };
    let left_area = Rect {
        width: area.width - rw,
        ..area
    };
    buf.set_line(left_area.x, left_area.y, &left, left_area.width);
    buf.set_line(area.x + area.width - rw, area.y, &right, rw);
}

fn render_gauges(app: &App, area: Rect, buf: &mut Buffer) {
    let th = app.config.thresholds;
    let [scn, time] = if area.height < 3 {
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area)
    } else {
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area)
    };
    let have = app.status_at.is_some() && app.status.current_scn > 0;
    let stopped = app.fatal_error().is_some();
    let scn_lag = app.status.scn_lag();
    LagGauge {
        title: "SCN lag",
        legend: format!(
            "warn {} · crit {}",
            compact(th.scn_warn),
            compact(th.scn_crit)
        ),
        value: have.then_some(scn_lag),
        text: thousands(scn_lag),
        full: th.scn_crit,
        level: if stopped {
            Level::Crit
        } else {
            th.scn_level(scn_lag)
        },
    }
    .render(scn, buf);
    let time_lag = time_lag_s(&app.status);
    // A capture that stopped before it mined a row has no time lag to
    // show, and is behind all the same: the gauge is full and red.
    let (value, text) = match time_lag.filter(|_| have) {
        Some(t) => (Some(t), duration_s(t)),
        None if stopped => (Some(th.time_crit_s), "unknown".to_string()),
        None => (None, duration_s(0)),
    };
    LagGauge {
        title: "Time lag",
        legend: format!(
            "warn {} · crit {}",
            duration_s(th.time_warn_s),
            duration_s(th.time_crit_s)
        ),
        value,
        text,
        full: th.time_crit_s,
        level: if stopped {
            Level::Crit
        } else {
            th.time_level(time_lag.unwrap_or(0))
        },
    }
    .render(time, buf);
}

fn render_stats(app: &App, area: Rect, buf: &mut Buffer) {
    let [spark, counts, tx] = if area.width >= 120 {
        Layout::horizontal([
            Constraint::Fill(1),
            Constraint::Length(37),
            Constraint::Length(40),
        ])
        .areas(area)
    } else {
        Layout::horizontal([
            Constraint::Fill(1),
            Constraint::Length(20),
            Constraint::Length(38),
        ])
        .areas(area)
    };
    ThroughputPanel {
        throughput: &app.throughput,
    }
    .render(spark, buf);
    CountsPanel {
        counts: &app.status.counts,
        rows_read: app.status.rows_read,
    }
    .render(counts, buf);
    let open = app.open_summary();
    TxPanel {
        status: &app.status,
        open: open.count,
        oldest_xid: open.oldest_xid.as_deref(),
        oldest_age_s: open.oldest_age_s,
        warn_age_s: app.config.thresholds.time_crit_s.max(1) * 10,
    }
    .render(tx, buf);
}

/// The stats row on one line: rate, counts, open transactions, restart SCN.
fn render_stats_line(app: &App, area: Rect, buf: &mut Buffer) {
    let st = &app.status;
    let c = &st.counts;
    let open = app.open_summary();
    let gray = Style::new().fg(Color::Gray);
    let sep = Span::styled(" │ ", Style::new().fg(Color::DarkGray));
    let mut spans = vec![
        Span::styled(
            format!(" {}/s", thousands(app.throughput.last())),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        sep.clone(),
        Span::styled("ins ", gray),
        Span::styled(thousands(c.inserts), Style::new().fg(Color::Green)),
        Span::styled(" upd ", gray),
        Span::styled(thousands(c.updates), Style::new().fg(Color::Yellow)),
        Span::styled(" del ", gray),
        Span::styled(thousands(c.deletes), Style::new().fg(Color::Red)),
        Span::styled(" ddl ", gray),
        Span::styled(thousands(c.ddl), Style::new().fg(Color::Magenta)),
        sep.clone(),
        Span::styled("open ", gray),
        Span::raw(thousands(open.count as u64)),
    ];
    if let Some(age) = open.oldest_age_s {
        spans.push(Span::styled(", oldest ", gray));
        spans.push(Span::raw(duration_s(age.max(0) as u64)));
    }
    spans.push(sep);
    spans.push(Span::styled("restart ", gray));
    spans.push(Span::raw(st.restart_scn.to_string()));
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

fn op_style(op: &str) -> Style {
    match op {
        "c" | "r" => Style::new().fg(Color::Green),
        "u" => Style::new().fg(Color::Yellow),
        "d" => Style::new().fg(Color::Red),
        _ => Style::new().fg(Color::Magenta),
    }
}

/// `100000` as `100k`, `1000000` as `1M`; other values in full.
fn compact(n: u64) -> String {
    match n {
        _ if n >= 1_000_000 && n.is_multiple_of(1_000_000) => format!("{}M", n / 1_000_000),
        _ if n >= 1_000 && n.is_multiple_of(1_000) => format!("{}k", n / 1_000),
        _ => thousands(n),
    }
}

fn clock(ms: i64, dated: bool) -> String {
    let fmt = if dated { "%m-%d %H:%M:%S" } else { "%H:%M:%S" };
    DateTime::from_timestamp_millis(ms)
        .map(|d| d.format(fmt).to_string())
        .unwrap_or_else(|| "--:--:--".into())
}

fn commit_ms(e: &Entry) -> i64 {
    match &e.event {
        CapturedEvent::Change(c) => c.commit_ts_ms,
        CapturedEvent::Ddl(d) => d.commit_ts_ms,
    }
}

/// Whether the changes shown span more than one day: the TIME column then
/// carries the date, or 09:00 yesterday would read as this morning.
fn spans_days(visible: &[&Entry]) -> bool {
    let day = |e: &&Entry| DateTime::from_timestamp_millis(commit_ms(e)).map(|d| d.date_naive());
    match (visible.first().map(day), visible.last().map(day)) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    }
}

/// `s` in exactly `w` terminal columns: padded, or cut with `…`. Control
/// characters (a newline inside a VARCHAR2) show as `·` so a value can never
/// break the grid; wide (CJK) characters count two columns.
fn fit(s: &str, w: usize) -> String {
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

fn char_width(c: char) -> usize {
    if c.is_control() {
        1
    } else {
        unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
    }
}

/// The list's columns for a width: (name, width); the last fills.
fn list_columns(width: u16, dated: bool, values: bool) -> Vec<(&'static str, usize)> {
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
const WIDE: u16 = 160;

/// `STATUS=SHIPPED UPDATED_AT=…`: each changed column with its new value
/// (the old one for a delete).
fn changed_values(e: &Entry) -> String {
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

fn entry_cells(e: &Entry, dated: bool, values: bool) -> Vec<String> {
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

fn render_list(app: &App, visible: &[&Entry], area: Rect, buf: &mut Buffer) {
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

fn field_span(f: Option<FieldRef<'_>>) -> Span<'static> {
    match f {
        None => Span::raw(""),
        Some(FieldRef::Null) => Span::styled("NULL", Style::new().fg(Color::DarkGray)),
        Some(FieldRef::Text(t) | FieldRef::Binary(t)) => Span::raw(t.to_string()),
        Some(FieldRef::Unavailable | FieldRef::UnavailableBinary) => {
            Span::styled("⟨unavailable⟩", Style::new().fg(Color::Magenta))
        }
    }
}

fn render_detail(visible: &[&Entry], app: &App, area: Rect, buf: &mut Buffer) {
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

/// `s` cut into pieces of at most `w` terminal columns each (at least one).
fn chunks(s: &str, w: usize) -> Vec<String> {
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

/// Before and after of every column, values in full (wrapped over as many
/// lines as they need), then the change's USERNAME and SQL_REDO.
fn render_images(c: &ChangeEvent, entry: &Entry, app: &App, area: Rect, buf: &mut Buffer) {
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

fn alert_style(a: &Alert) -> (&'static str, Style) {
    match (a.kind, a.retrying, a.resolved) {
        (AlertKind::SourceError, _, true) => ("✔ resolved", Style::new().fg(Color::Gray)),
        (AlertKind::SourceError, true, false) => (
            "↻ retrying",
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
        (AlertKind::SourceError, false, false) => (
            "✖ stopped",
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ),
        (AlertKind::Finding, _, _) => ("▲ finding", Style::new().fg(Color::Yellow)),
    }
}

fn alert_line(a: &Alert) -> Line<'static> {
    let (tag, style) = alert_style(a);
    let mut spans = vec![Span::styled(format!("{tag} "), style)];
    if let Some(at) = a.raised_at {
        spans.push(Span::styled(
            format!("{} ", at.format("%H:%M:%S")),
            Style::new().fg(Color::Gray),
        ));
    }
    // ORA- messages already start with their code.
    if !a.code.is_empty() && !a.message.starts_with(&a.code) {
        spans.push(Span::styled(format!("{} ", a.code), style));
    }
    spans.push(Span::raw(a.message.clone()));
    if a.count > 1 {
        spans.push(Span::styled(
            format!(" ×{}", thousands(a.count)),
            Style::new().fg(Color::Gray),
        ));
    }
    Line::from(spans)
}

/// The error that stopped capture, in full: wrapped, indented, with advice.
fn render_stopped(a: &Alert, area: Rect, buf: &mut Buffer) {
    let red = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
    let block = Block::bordered()
        .border_style(red)
        .title(Line::styled(" Capture stopped ", red));
    let inner = block.inner(area);
    block.render(area, buf);
    let indent = |text: &str, width: u16| -> Vec<Line<'static>> {
        let w = usize::from(width.saturating_sub(4)).max(10);
        let mut lines = Vec::new();
        let mut cur = String::new();
        for word in text.split_whitespace() {
            if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > w {
                lines.push(Line::raw(format!("    {cur}")));
                cur.clear();
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        if !cur.is_empty() {
            lines.push(Line::raw(format!("    {cur}")));
        }
        lines
    };
    let mut lines = vec![Line::styled("error:", red)];
    lines.extend(indent(&a.text(), inner.width));
    if let Some(advice) = &a.advice {
        lines.push(Line::raw(""));
        lines.push(Line::styled("what to do:", Style::new().fg(Color::Cyan)));
        lines.extend(indent(advice, inner.width));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "q quits; the exit code and the message are repeated on the terminal",
        Style::new().fg(Color::Gray),
    ));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}

fn render_alerts(app: &App, area: Rect, buf: &mut Buffer) {
    if app.alerts.is_empty() {
        buf.set_line(
            area.x,
            area.y,
            &Line::styled(" alerts: none", Style::new().fg(Color::DarkGray)),
            area.width,
        );
        return;
    }
    let border = if app.fatal_error().is_some() {
        Color::Red
    } else if app.alerts.iter().any(|a| !a.resolved) {
        Color::Yellow
    } else {
        Color::DarkGray
    };
    let block = Block::bordered()
        .border_style(Style::new().fg(border))
        .title(match app.alerts.iter().filter(|a| a.resolved).count() {
            0 => format!(" Alerts: {} ", app.alerts.len()),
            r => format!(" Alerts: {} ({r} resolved) ", app.alerts.len()),
        });
    let inner = block.inner(area);
    block.render(area, buf);
    let mut lines = Vec::new();
    for a in app.alerts_by_urgency() {
        for l in alert_lines(a) {
            lines.extend(hang(l, inner.width, ALERT_INDENT));
        }
        if lines.len() >= usize::from(inner.height) {
            break;
        }
    }
    Paragraph::new(lines).render(inner, buf);
}

fn render_status_line(app: &App, area: Rect, buf: &mut Buffer) {
    if let Mode::FilterInput(text) = &app.mode {
        let line = Line::from(vec![
            Span::styled(" filter: ", Style::new().fg(Color::Black).bg(Color::Cyan)),
            Span::raw(format!(" {text}")),
            Span::styled("▏", Style::new().add_modifier(Modifier::SLOW_BLINK)),
            Span::styled(
                "   Enter apply · Esc cancel · words: insert update delete ddl op:u, or any text",
                Style::new().fg(Color::Gray),
            ),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
        return;
    }
    let mut spans = Vec::new();
    if app.paused {
        spans.push(Span::styled(
            format!(" PAUSED +{} ", thousands(app.pending_count() as u64)),
            Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::raw(" "));
    }
    if let Some(f) = &app.filter {
        spans.push(Span::styled(
            format!(" /{} ", f.text),
            Style::new().fg(Color::Black).bg(Color::Cyan),
        ));
        spans.push(Span::raw(" "));
    }
    let mut show_keys = false;
    match app.headline_alert() {
        Some(a) => {
            let (tag, style) = alert_style(a);
            let text = format!("{tag}: {}", a.text());
            spans.push(Span::styled(text, style));
        }
        None if app.engine_stopped || app.status.state == MiningState::Finished => {
            spans.push(Span::styled(
                "capture ended; the list stays for reading · q quit",
                Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
            ))
        }
        None => show_keys = true,
    }
    let help = Span::styled(" ? help ", Style::new().fg(Color::Gray));
    let hw = help.width() as u16;
    if show_keys {
        let used: usize = spans.iter().map(Span::width).sum();
        let room = usize::from(area.width.saturating_sub(hw)).saturating_sub(used);
        spans.push(Span::styled(
            key_hints(app.show_detail, room),
            Style::new().fg(Color::Gray),
        ));
    }
    buf.set_line(
        area.x,
        area.y,
        &Line::from(spans),
        area.width.saturating_sub(hw),
    );
    if area.width > hw {
        buf.set_span(area.x + area.width - hw, area.y, &help, hw);
    }
}

/// The keys worth showing in the status line, as many as fit in `room`
/// columns: those that leave the current view first, scrolling last.
fn key_hints(detail_open: bool, room: usize) -> String {
    let close = if detail_open {
        "Esc close"
    } else {
        "Enter detail"
    };
    // (priority, text) in display order; a lower priority is dropped first.
    let hints = [
        (6, "q quit"),
        (5, close),
        (4, "t transactions"),
        (3, "/ filter"),
        (2, "p pause"),
        (1, "↑↓ PgUp PgDn g G scroll"),
    ];
    let joined = |min: u8| {
        hints
            .iter()
            .filter(|(p, _)| *p >= min)
            .map(|(_, h)| *h)
            .collect::<Vec<_>>()
            .join(" · ")
    };
    (1..=6)
        .map(joined)
        .find(|t| t.chars().count() <= room)
        .unwrap_or_default()
}

const HELP: &[(&str, &str)] = &[
    ("q", "quit"),
    ("Esc", "close the detail pane, then clear the filter"),
    ("p  Space", "pause the list; capture continues"),
    ("/", "filter: insert update delete ddl op:u, or text"),
    ("", "(table, XID, column or value); Enter applies,"),
    ("", "Esc cancels, an empty filter clears it"),
    ("↑ ↓  j k", "select the previous / next change"),
    (
        "PgUp PgDn",
        "a page up / down; in the detail pane, its lines",
    ),
    ("g  G", "oldest kept / follow the newest"),
    ("Enter", "before and after of the selected change"),
    ("t", "open transactions, full screen (V$TRANSACTION)"),
    ("?", "this help; any key closes it"),
];

/// The open transactions on the whole screen, in the manner of GoldenGate's
/// `SEND … SHOWTRANS`: the database's list (V$TRANSACTION joined to
/// V$SESSION, read at start and on a slow timer) merged with what capture
/// buffers for each.
fn render_transactions(app: &App, area: Rect, buf: &mut Buffer) {
    Clear.render(area, buf);
    let h = &app.header;
    let at = h
        .db_transactions_at
        .map(|t| format!(" at {}", t.format("%H:%M:%S")))
        .unwrap_or_default();
    // A cluster's sessions carry their instance: the list is GV$'s.
    let view = if h
        .db_transactions
        .iter()
        .any(|t| t.session.as_ref().is_some_and(|s| s.inst_id.is_some()))
    {
        "GV$TRANSACTION"
    } else {
        "V$TRANSACTION"
    };
    let block = Block::bordered()
        .title(format!(
            " Open transactions: {} in {view}{at} · t or Esc closes ",
            thousands(h.db_transactions.len() as u64)
        ))
        .border_style(Style::new().fg(Color::Cyan));
    let inner = block.inner(area);
    block.render(area, buf);
    let mut lines = Vec::new();
    if let Some(e) = &h.db_transactions_error {
        lines.push(Line::styled(
            format!("V$TRANSACTION could not be read: {e}"),
            Style::new().fg(Color::Yellow),
        ));
    }
    let rows = app.open_rows();
    if inner.width >= 150 {
        lines.extend(txn_table(app, &rows, inner.width, false));
    } else {
        lines.extend(txn_pairs(app, &rows, inner.width));
    }
    if rows.is_empty() && h.db_transactions_error.is_none() {
        lines.push(Line::styled(
            "no transaction is open in the database",
            Style::new().fg(Color::Gray),
        ));
    }
    Paragraph::new(lines).render(inner, buf);
}

/// What capture buffers for a transaction, in one cell.
fn buffered_text(row: &TxnRow) -> String {
    match &row.buffered {
        Some(b) => format!(
            "{} chg {}{}",
            thousands(b.events),
            super::widgets::bytes(b.bytes),
            if b.spilled { " spilled" } else { "" }
        ),
        None => "-".into(),
    }
}

/// A transaction's row: yellow once spilled, gray when the database no
/// longer (or not yet) lists it.
fn txn_style(r: &TxnRow) -> Style {
    match &r.buffered {
        Some(b) if b.spilled => Style::new().fg(Color::Yellow),
        _ if !r.in_database => Style::new().fg(Color::Gray),
        _ => Style::new(),
    }
}

/// A transaction's age at the database's clock, as the lists show it.
fn txn_age(app: &App, r: &TxnRow) -> String {
    app.txn_age_s(r)
        .map_or_else(|| "?".into(), |a| duration_s(a.max(0) as u64))
}

/// The full-screen list below 150 columns: two lines per transaction, so
/// nothing is dropped. The first holds where it started and who holds it
/// (XID, start SCN and time, age, user, SID,SERIAL#), the second what runs
/// it and what capture buffers for it.
fn txn_pairs(app: &App, rows: &[TxnRow], width: u16) -> Vec<Line<'static>> {
    let w = usize::from(width);
    let cols = [
        ("XID", 16),
        ("START SCN", 10),
        ("START TIME", 14),
        ("AGE", 7),
        ("USER", 10),
        ("SID,SERIAL#", 14),
    ];
    let cell = |text: &str, width: usize| format!("{} ", fit(text, width));
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut head = String::new();
    for (name, cw) in cols {
        head.push_str(&cell(name, cw));
    }
    let mut out = vec![
        Line::styled(fit(&head, w), bold),
        Line::styled(fit("  PROGRAM on MACHINE · BUFFERED BY CAPTURE", w), bold),
    ];
    for r in rows {
        let start = r
            .start_time
            .map(|s| s.format("%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|| "?".into());
        let first = [
            r.xid.clone(),
            r.start_scn.to_string(),
            start,
            txn_age(app, r),
            r.username.clone().unwrap_or_else(|| "?".into()),
            r.session.clone().unwrap_or_else(|| "-".into()),
        ];
        let mut line = String::new();
        for (text, (_, cw)) in first.iter().zip(cols) {
            line.push_str(&cell(text, cw));
        }
        let who = match (&r.program, &r.machine) {
            (Some(p), Some(m)) => format!("{p} on {m}"),
            (Some(p), None) => p.clone(),
            (None, Some(m)) => format!("on {m}"),
            (None, None) => "-".into(),
        };
        let second = format!("  {who} · {}", buffered_text(r));
        let style = txn_style(r);
        out.push(Line::styled(fit(&line, w), style));
        out.push(Line::styled(fit(&second, w), style));
    }
    out
}

/// The open-transactions table at a width: the header line and a line per
/// transaction. Columns drop from the right end of the least needed as the
/// width shrinks; XID, age, user, program, machine and the buffered figure
/// stay down to 80 columns. `brief` is the side panel of a wide screen.
fn txn_table(app: &App, rows: &[TxnRow], width: u16, brief: bool) -> Vec<Line<'static>> {
    let w = usize::from(width);
    let full = !brief && w >= 150;
    let mut cols: Vec<(&str, usize)> = if brief {
        vec![("XID", 16), ("AGE", 6), ("USER", 8)]
    } else {
        vec![("XID", 16), ("AGE", 7), ("USER", 10)]
    };
    if full {
        cols.insert(1, ("START SCN", 12));
        cols.insert(2, ("START TIME", 19));
        cols.push(("SID,SERIAL#", 14));
    }
    let (program_w, machine_w) = match w {
        _ if brief => (12, 10),
        110.. => (24, 18),
        _ => (14, 11),
    };
    cols.push(("PROGRAM", program_w));
    cols.push(("MACHINE", machine_w));
    if full {
        cols.push(("UNDO REC", 9));
        cols.push(("CONTAINER", 10));
    }
    cols.push(("BUFFERED BY CAPTURE", 0));
    let fixed: usize = cols.iter().map(|c| c.1 + 1).sum();
    let last = w.saturating_sub(fixed).max(8);
    let cell = |text: &str, width: usize| format!("{} ", fit(text, width));
    let mut head = String::new();
    for (name, cw) in &cols {
        head.push_str(&cell(name, if *cw == 0 { last } else { *cw }));
    }
    let mut out = vec![Line::styled(
        head,
        Style::new().add_modifier(Modifier::BOLD),
    )];
    for r in rows {
        let age = txn_age(app, r);
        let mut line = String::new();
        for (name, cw) in &cols {
            let text = match *name {
                "XID" => r.xid.clone(),
                "START SCN" => r.start_scn.to_string(),
                "START TIME" => r
                    .start_time
                    .map(|s| s.format("%Y-%m-%d %H:%M:%S").to_string())
                    .unwrap_or_else(|| "?".into()),
                "AGE" => age.clone(),
                "USER" => r.username.clone().unwrap_or_else(|| "?".into()),
                "SID,SERIAL#" => r.session.clone().unwrap_or_default(),
                "PROGRAM" => r.program.clone().unwrap_or_else(|| "-".into()),
                "MACHINE" => r.machine.clone().unwrap_or_else(|| "-".into()),
                "UNDO REC" => r.undo_records.map(thousands).unwrap_or_default(),
                "CONTAINER" => r.container.clone().unwrap_or_default(),
                _ => buffered_text(r),
            };
            line.push_str(&cell(&text, if *cw == 0 { last } else { *cw }));
        }
        let style = txn_style(r);
        out.push(Line::styled(line, style));
    }
    out
}

fn render_help(area: Rect, buf: &mut Buffer) {
    let w = 62.min(area.width);
    let h = (HELP.len() as u16 + 6).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    Clear.render(popup, buf);
    let block = Block::bordered()
        .title(" Keys ")
        .border_style(Style::new().fg(Color::Cyan));
    let inner = block.inner(popup);
    block.render(popup, buf);
    let mut lines: Vec<Line> = HELP
        .iter()
        .map(|(k, v)| {
            Line::from(vec![
                Span::styled(
                    format!(" {k:<11}"),
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                Span::raw(*v),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    for note in [
        " Gauges: red at the critical threshold (--lag-crit).",
        " Alerts: a transaction older than --alert-txn-age or",
        " holding more than --alert-txn-changes changes.",
    ] {
        lines.push(Line::styled(note, Style::new().fg(Color::Gray)));
    }
    Paragraph::new(lines).render(inner, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_alert_continues_indented_under_its_first_row() {
        let line = Line::from(vec![
            Span::raw("▲ finding "),
            Span::raw("deleted ahead of the read position"),
        ]);
        let rows: Vec<String> = hang(line, 20, 4).iter().map(|l| l.to_string()).collect();
        assert_eq!(
            rows,
            [
                "▲ finding deleted ",
                "    ahead of the ",
                "    read position"
            ]
        );
        let long = Line::from(Span::raw("x".repeat(30)));
        let rows: Vec<String> = hang(long, 20, 4).iter().map(|l| l.to_string()).collect();
        assert_eq!(rows, ["x".repeat(20), format!("    {}", "x".repeat(10))]);
    }

    #[test]
    fn fit_pads_and_cuts_to_terminal_columns() {
        assert_eq!(fit("ORDERS", 8), "ORDERS  ");
        assert_eq!(fit("ORDER_LINES", 8), "ORDER_L…");
        assert_eq!(fit("", 0), "");
    }

    #[test]
    fn fit_counts_wide_characters_twice() {
        // 订单已发货 is five characters, ten columns.
        assert_eq!(fit("订单已发货", 10), "订单已发货");
        assert_eq!(fit("订单已发货", 8), "订单已… ");
    }

    #[test]
    fn fit_shows_control_characters_as_dots() {
        assert_eq!(fit("line1\nline2", 11), "line1·line2");
        assert_eq!(fit("a\tb", 4), "a·b ");
    }
}
