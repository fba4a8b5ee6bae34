//! The open transactions, in the side panel and on the whole screen.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::tui::app::App;
use crate::tui::format::{duration_s, thousands};
use crate::tui::txns::TxnRow;

use super::text::fit;

/// The open transactions on the whole screen, in the manner of GoldenGate's
/// `SEND … SHOWTRANS`: the database's list (V$TRANSACTION joined to
/// V$SESSION, read at start and on a slow timer) merged with what capture
/// buffers for each.
pub(super) fn render_transactions(app: &App, area: Rect, buf: &mut Buffer) {
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
    let rows = app.open_rows();
    let capture_only = rows.iter().filter(|r| !r.in_database).count();
    let block = Block::bordered()
        .title(format!(
            " Open transactions: {} · {} in {view}{at} · t or Esc closes ",
            thousands(rows.len() as u64),
            thousands(h.db_transactions.len() as u64),
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
    if capture_only > 0 {
        // Such a row's session is unknown until the next reading lists it.
        lines.push(Line::styled(
            fit(
                &format!(
                    "{} gray: buffered by capture only, not in the last {view} reading (begun since, or ended); USER ? until a reading lists it",
                    thousands(capture_only as u64)
                ),
                usize::from(inner.width),
            ),
            Style::new().fg(Color::Gray),
        ));
    }
    if inner.width >= FULL_TABLE_WIDTH {
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

/// The width from which the whole-screen list is one line per transaction
/// with every column: the fixed columns take 149, and the buffered figure
/// (`1,234,567 chg 1023.9 MiB spilled`) needs 32 more.
const FULL_TABLE_WIDTH: u16 = 181;

/// What capture buffers for a transaction, in one cell.
pub(super) fn buffered_text(row: &TxnRow) -> String {
    match &row.buffered {
        Some(b) => format!(
            "{} chg {}{}",
            thousands(b.events),
            crate::tui::format::bytes(b.bytes),
            if b.spilled { " spilled" } else { "" }
        ),
        None => "-".into(),
    }
}

/// A transaction's row: yellow once spilled, gray when the database no
/// longer (or not yet) lists it.
pub(super) fn txn_style(r: &TxnRow) -> Style {
    match &r.buffered {
        Some(b) if b.spilled => Style::new().fg(Color::Yellow),
        _ if !r.in_database => Style::new().fg(Color::Gray),
        _ => Style::new(),
    }
}

/// A transaction's age at the database's clock, as the lists show it.
pub(super) fn txn_age(app: &App, r: &TxnRow) -> String {
    app.txn_age_s(r)
        .map_or_else(|| "?".into(), |a| duration_s(a.max(0) as u64))
}

/// The full-screen list below [`FULL_TABLE_WIDTH`]: two lines per transaction, so
/// nothing is dropped. The first holds where it started and who holds it
/// (XID, start SCN and time, age, user, SID,SERIAL#), the second what runs
/// it and what capture buffers for it.
pub(super) fn txn_pairs(app: &App, rows: &[TxnRow], width: u16) -> Vec<Line<'static>> {
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
pub(super) fn txn_table(app: &App, rows: &[TxnRow], width: u16, brief: bool) -> Vec<Line<'static>> {
    let w = usize::from(width);
    let full = !brief && width >= FULL_TABLE_WIDTH;
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
