//! Draws the whole `tail` screen from `&App`: header, lag gauges, the stats
//! row, the mined-logs line, the change list with its detail pane, alerts
//! and the status line, plus the help overlay. Layout adapts to the size;
//! nothing here changes state.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};
use ratatui::Frame;

use crate::engine::metrics::MiningState;

use super::app::{App, Mode};
use super::format::{duration_s, thousands};
use super::lag::{time_lag_s, Level};
use super::widgets::{CountsPanel, LagGauge, LogsLine, ThroughputPanel, TxPanel};

mod alerts;
mod list;
mod text;
mod txns;

use alerts::{alert_style, alerts_height, render_alerts, render_stopped};
use list::{render_detail, render_list, WIDE};
use text::{compact, fit};
use txns::{render_transactions, txn_table};

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
    // Stopped capture has no lag to explain: the error takes the room.
    let cause_h = u16::from(app.fatal_error().is_none());
    let [header, cause, gauges, stats, logs, snapshot, list, alerts, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(cause_h),
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
    render_cause(app, cause, buf);
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
    // Never `clamp(3, height / 2)`: a side panel under 6 rows (a short
    // screen with a warning banner) has a bound below the floor.
    let tables_h = (app.per_table.len() as u16 + 2)
        .min(area.height / 2)
        .max(3)
        .min(area.height);
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
    let version = crate::tui::format::short_banner(&h.version);
    // Parts in the order shown, with the priority to keep them when the
    // line is too narrow (the version goes first, the tables last).
    let parts = [
        (&h.source, Style::new().add_modifier(Modifier::BOLD), 0),
        (&version, Style::new(), 3),
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

/// Under the header: why capture is behind, or that it keeps up, with
/// the advice while it is not keeping up.
fn render_cause(app: &App, area: Rect, buf: &mut Buffer) {
    use crate::engine::lag_cause::Cause;
    if area.height == 0 {
        return;
    }
    let d = app.diagnosis();
    let (fg, bg) = match d.cause {
        Cause::KeepingUp => (Color::Black, Color::Green),
        Cause::SourceErrors => (Color::White, Color::Red),
        _ => (Color::Black, Color::Yellow),
    };
    let mut spans = vec![
        Span::styled(
            " CAUSE ",
            Style::new().fg(fg).bg(bg).add_modifier(Modifier::BOLD),
        ),
        Span::raw(format!(" {}", d.line())),
    ];
    if d.cause != Cause::KeepingUp {
        spans.push(Span::styled(
            format!(" → {}", d.advice),
            Style::new().fg(Color::DarkGray),
        ));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
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

/// Below the keys: what the screen's words mean.
const HELP_NOTES: [&str; 5] = [
    " Gauges: red at the critical threshold (--lag-crit).",
    " Alerts: a transaction holding the window back, older than",
    " --alert-txn-age or holding more than --alert-txn-changes.",
    " Operations: partial = rollbacks to a savepoint (the",
    " transaction went on); rows = rows read from LogMiner.",
];

fn render_help(area: Rect, buf: &mut Buffer) {
    let w = 62.min(area.width);
    let h = (HELP.len() as u16 + HELP_NOTES.len() as u16 + 3).min(area.height);
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
    for note in HELP_NOTES {
        lines.push(Line::styled(note, Style::new().fg(Color::Gray)));
    }
    Paragraph::new(lines).render(inner, buf);
}

#[cfg(test)]
mod tests {
    use super::text::hang;
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
