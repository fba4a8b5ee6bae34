//! The alerts pane, and the full-screen error that stopped capture.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::tui::alerts::{Alert, AlertKind};
use crate::tui::app::App;
use crate::tui::format::thousands;

use super::text::hang;

/// The lines of one alert: what happened, then what to do.
pub(super) fn alert_lines(a: &Alert) -> Vec<Line<'static>> {
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
pub(super) const ALERT_INDENT: usize = 4;

pub(super) fn alerts_height(app: &App, area: Rect) -> u16 {
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

pub(super) fn alert_style(a: &Alert) -> (&'static str, Style) {
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

pub(super) fn alert_line(a: &Alert) -> Line<'static> {
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
pub(super) fn render_stopped(a: &Alert, area: Rect, buf: &mut Buffer) {
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

pub(super) fn render_alerts(app: &App, area: Rect, buf: &mut Buffer) {
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
