//! The panels of the `tail` screen as plain widgets over borrowed data:
//! lag gauges, operation counts, open transactions, throughput and the
//! mined-logs line. Each renders into any `Rect`, so tests check them
//! against a `Buffer` alone.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Sparkline, Widget};

use crate::engine::metrics::{CaptureStatus, OpCounts};

use super::lag::Level;
use super::throughput::Throughput;

use super::format::{duration_s, thousands};

/// Whether titles, each padded by a space on both sides, fit on a border
/// of `width` with a corner and a dash at each end.
fn fits_titles(width: u16, titles: &[&str]) -> bool {
    let need: usize = titles.iter().map(|t| t.chars().count() + 2).sum::<usize>()
        + 4
        + titles.len().saturating_sub(1);
    need <= usize::from(width)
}

/// The colour of a level.
pub fn level_color(level: Level) -> Color {
    match level {
        Level::Ok => Color::Green,
        Level::Warn => Color::Yellow,
        Level::Crit => Color::Red,
    }
}

/// A one-line bar filled in proportion to `value / full`, coloured by level,
/// with the value as text after it.
#[derive(Debug, Clone)]
pub struct LagGauge<'a> {
    pub title: &'a str,
    /// Shown at the right of the top border (the thresholds).
    pub legend: String,
    /// `None`: not known yet (no status, or no row mined).
    pub value: Option<u64>,
    /// The value as text (`42s`, `240`).
    pub text: String,
    /// The value at which the bar is full (the critical threshold).
    pub full: u64,
    pub level: Level,
}

impl LagGauge<'_> {
    /// The gauge on one line, for short terminals: `SCN lag ██░░ 314`.
    fn render_line(&self, area: Rect, buf: &mut Buffer) {
        let color = level_color(self.level);
        let title = format!(" {} ", self.title);
        let mut spans = vec![Span::styled(
            title.clone(),
            Style::new().fg(color).add_modifier(Modifier::BOLD),
        )];
        let room = usize::from(area.width).saturating_sub(title.chars().count());
        match self.value {
            None => spans.push(Span::raw("waiting for the first status")),
            Some(value) => {
                let tag = match self.level {
                    Level::Ok => "",
                    Level::Warn => " WARN",
                    Level::Crit => " CRIT",
                };
                let text = format!(" {}{tag}", self.text);
                let bar_w = room.saturating_sub(text.chars().count());
                let filled = bar_cells(value, self.full, bar_w);
                spans.push(Span::styled("█".repeat(filled), Style::new().fg(color)));
                spans.push(Span::styled(
                    "░".repeat(bar_w - filled),
                    Style::new().fg(Color::DarkGray),
                ));
                spans.push(Span::styled(
                    text,
                    Style::new().fg(color).add_modifier(Modifier::BOLD),
                ));
            }
        }
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    }
}

/// Cells of a `width`-cell bar filled for `value` out of `full`; any lag at
/// all shows, however small next to the scale.
fn bar_cells(value: u64, full: u64, width: usize) -> usize {
    let ratio = if full == 0 {
        1.0
    } else {
        (value as f64 / full as f64).min(1.0)
    };
    let filled = (ratio * width as f64).round() as usize;
    if value > 0 && filled == 0 && width > 0 {
        1
    } else {
        filled.min(width)
    }
}

impl Widget for &LagGauge<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.height < 3 {
            self.render_line(area, buf);
            return;
        }
        let color = level_color(self.level);
        let mut block = Block::bordered()
            .border_style(Style::new().fg(color))
            .title(
                Line::from(format!(" {} ", self.title))
                    .style(Style::new().add_modifier(Modifier::BOLD)),
            );
        if fits_titles(area.width, &[self.title, &self.legend]) {
            block = block.title_top(Line::from(format!(" {} ", self.legend)).right_aligned());
        }
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let Some(value) = self.value else {
            Paragraph::new("waiting for the first status").render(inner, buf);
            return;
        };
        let tag = match self.level {
            Level::Ok => "",
            Level::Warn => " WARN",
            Level::Crit => " CRIT",
        };
        let text = format!(" {}{tag}", self.text);
        let bar_w = (inner.width as usize).saturating_sub(text.chars().count());
        let filled = bar_cells(value, self.full, bar_w);
        let line = Line::from(vec![
            Span::styled("█".repeat(filled), Style::new().fg(color)),
            Span::styled("░".repeat(bar_w - filled), Style::new().fg(Color::DarkGray)),
            Span::styled(text, Style::new().fg(color).add_modifier(Modifier::BOLD)),
        ]);
        buf.set_line(inner.x, inner.y, &line, inner.width);
    }
}

/// Totals per operation since the engine started.
#[derive(Debug, Clone)]
pub struct CountsPanel<'a> {
    pub counts: &'a OpCounts,
    pub rows_read: u64,
}

impl Widget for &CountsPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let c = self.counts;
        let block = Block::bordered().title(" Operations ");
        let inner = block.inner(area);
        block.render(area, buf);
        let left = [
            ("insert", c.inserts, Color::Green),
            ("update", c.updates, Color::Yellow),
            ("delete", c.deletes, Color::Red),
            ("ddl", c.ddl, Color::Magenta),
        ];
        let right = [
            ("commit", c.commits),
            ("rollback", c.rollbacks),
            ("partial", c.partial_rollbacks),
            ("rows", self.rows_read),
        ];
        let two_columns = inner.width >= 33;
        let lines: Vec<Line> = left
            .iter()
            .zip(right.iter())
            .map(|(&(l, lv, color), &(r, rv))| {
                let mut spans = vec![
                    Span::styled(format!("{l:<7}"), Style::new().fg(color)),
                    Span::raw(format!("{:>8}", thousands(lv))),
                ];
                if two_columns {
                    spans.push(Span::styled(
                        format!("  {r:<8}"),
                        Style::new().fg(Color::Gray),
                    ));
                    spans.push(Span::raw(format!("{:>8}", thousands(rv))));
                }
                Line::from(spans)
            })
            .collect();
        Paragraph::new(lines).render(inner, buf);
    }
}

/// Open transactions: how many, the oldest (by start) and the largest.
#[derive(Debug, Clone)]
pub struct TxPanel<'a> {
    pub status: &'a CaptureStatus,
    /// Open transactions as the screen lists them (the database's and
    /// the buffer's), not only those capture buffers.
    pub open: usize,
    /// XID of the oldest of them.
    pub oldest_xid: Option<&'a str>,
    /// Age of the oldest open transaction in seconds.
    pub oldest_age_s: Option<i64>,
    /// Ages at or above this are coloured as a warning.
    pub warn_age_s: u64,
}

impl Widget for &TxPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let st = self.status;
        let block = Block::bordered().title(format!(
            " Open transactions: {} ",
            thousands(self.open as u64)
        ));
        let inner = block.inner(area);
        block.render(area, buf);
        let mut lines = Vec::new();
        match self.oldest_xid {
            Some(xid) => {
                let age = self
                    .oldest_age_s
                    .map(|a| duration_s(a.max(0) as u64))
                    .unwrap_or_else(|| "?".into());
                let old = self
                    .oldest_age_s
                    .is_some_and(|a| a >= 0 && a as u64 >= self.warn_age_s);
                let style = if old {
                    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
                } else {
                    Style::new()
                };
                lines.push(Line::from(vec![
                    Span::styled("oldest  ", Style::new().fg(Color::Gray)),
                    Span::styled(format!("{age:>9}"), style),
                    Span::raw(format!("  {xid}")),
                ]));
            }
            None => lines.push(Line::from(Span::styled(
                "none open",
                Style::new().fg(Color::Gray),
            ))),
        }
        if let Some(l) = &st.largest_open {
            let spill = if l.spilled { " spilled" } else { "" };
            lines.push(Line::from(vec![
                Span::styled("largest ", Style::new().fg(Color::Gray)),
                Span::raw(format!(
                    "{:>9}  {}{spill}",
                    format!("{} ev", thousands(l.events)),
                    l.xid
                )),
            ]));
        }
        lines.push(Line::from(vec![
            Span::styled("restart ", Style::new().fg(Color::Gray)),
            Span::raw(format!("SCN {}", st.restart_scn)),
        ]));
        lines.push(Line::from(vec![
            Span::styled("commit  ", Style::new().fg(Color::Gray)),
            Span::raw(format!("SCN {}", st.commit_scn)),
        ]));
        Paragraph::new(lines).render(inner, buf);
    }
}

/// Events per second, as a sparkline of the last seconds.
#[derive(Debug, Clone)]
pub struct ThroughputPanel<'a> {
    pub throughput: &'a Throughput,
}

impl Widget for &ThroughputPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.throughput;
        let (now, avg, peak) = (
            thousands(t.last()),
            thousands(t.average(60)),
            thousands(t.peak()),
        );
        // The longest legend that fits: it loses the average, then the peak.
        let legends = [
            format!("{now} now · {avg} avg 1m · {peak} peak"),
            format!("{now} now · {peak} peak"),
            format!("{now} now"),
        ];
        let block = match legends
            .iter()
            .find(|l| fits_titles(area.width, &["Events/s", l]))
        {
            Some(l) => Block::bordered()
                .title(" Events/s ")
                .title_top(Line::from(format!(" {l} ")).right_aligned()),
            None => Block::bordered().title(format!(" {now}/s ")),
        };
        let inner = block.inner(area);
        block.render(area, buf);
        let h = t.history();
        let take = (inner.width as usize).min(h.len());
        let data: Vec<u64> = h.iter().skip(h.len() - take).copied().collect();
        Sparkline::default()
            .data(&data)
            .max(sparkline_scale(&data))
            .style(Style::new().fg(Color::Cyan))
            .render(inner, buf);
    }
}

/// The value a full bar stands for: the highest second, but at most half
/// again the 90th percentile, so one
/// peak (a batch job's burst) does not flatten normal traffic to nothing;
/// the peak's bar is cut at full height and its figure is in the title.
pub fn sparkline_scale(data: &[u64]) -> u64 {
    let mut sorted: Vec<u64> = data.to_vec();
    sorted.sort_unstable();
    let p90 = sorted
        .get((sorted.len() * 9 / 10).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0);
    let max = sorted.last().copied().unwrap_or(0);
    (p90 + p90 / 2).min(max).max(1)
}

/// One line: the SCN window and the logs of the current session.
#[derive(Debug, Clone)]
pub struct LogsLine<'a> {
    pub status: &'a CaptureStatus,
}

impl Widget for &LogsLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let st = self.status;
        let dim = Style::new().fg(Color::Gray);
        if st.current_scn == 0 {
            buf.set_line(
                area.x,
                area.y,
                &Line::styled(" logs: waiting for the first status", dim),
                area.width,
            );
            return;
        }
        let mut spans = vec![Span::styled(" logs ", dim)];
        if st.logs.is_empty() {
            spans.push(Span::styled("none", dim));
        }
        for (i, log) in st.logs.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(", ", dim));
            }
            let (kind, color) = if log.online {
                ("online", Color::Green)
            } else {
                ("archived", Color::Blue)
            };
            spans.push(Span::raw(format!("t{} #{} ", log.thread, log.sequence)));
            spans.push(Span::styled(kind, Style::new().fg(color)));
        }
        // Parts that do not fit whole are left out (the mined SCN first,
        // then the window) rather than cut in the middle of a number.
        let parts = [
            vec![
                Span::styled(" │ window ", dim),
                Span::raw(match st.window {
                    (0, 0) => "none yet".to_string(),
                    (from, to) => format!("{from}–{to}"),
                }),
            ],
            vec![
                Span::styled(" │ mined ", dim),
                Span::raw(st.mined_scn.to_string()),
                Span::styled(" of ", dim),
                Span::raw(st.current_scn.to_string()),
            ],
        ];
        let width = |v: &[Span]| v.iter().map(Span::width).sum::<usize>();
        let mut used = width(&spans);
        for part in parts {
            let w = width(&part);
            if used + w > usize::from(area.width) {
                break;
            }
            used += w;
            spans.extend(part);
        }
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::ViewConfig;
    use crate::tui::feed;
    use crate::tui::lag::Thresholds;

    /// The buffer's text without styles, to compare with `Buffer::with_lines`.
    fn unstyled(buf: &Buffer) -> Buffer {
        let mut b = buf.clone();
        b.set_style(b.area, Style::reset());
        b
    }

    fn render(w: &impl WidgetRef, width: u16, height: u16) -> Buffer {
        let mut buf = Buffer::empty(Rect::new(0, 0, width, height));
        w.draw(buf.area, &mut buf);
        buf
    }

    trait WidgetRef {
        fn draw(&self, area: Rect, buf: &mut Buffer);
    }
    impl WidgetRef for LagGauge<'_> {
        fn draw(&self, area: Rect, buf: &mut Buffer) {
            self.render(area, buf)
        }
    }
    impl WidgetRef for CountsPanel<'_> {
        fn draw(&self, area: Rect, buf: &mut Buffer) {
            self.render(area, buf)
        }
    }
    impl WidgetRef for TxPanel<'_> {
        fn draw(&self, area: Rect, buf: &mut Buffer) {
            self.render(area, buf)
        }
    }
    impl WidgetRef for LogsLine<'_> {
        fn draw(&self, area: Rect, buf: &mut Buffer) {
            self.render(area, buf)
        }
    }

    fn time_gauge(lag: u64) -> LagGauge<'static> {
        let th = Thresholds::default();
        LagGauge {
            title: "Time lag",
            legend: "10s/60s".into(),
            value: Some(lag),
            text: duration_s(lag),
            full: th.time_crit_s,
            level: th.time_level(lag),
        }
    }

    #[test]
    fn thousands_groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }

    #[test]
    fn durations_use_the_two_largest_units() {
        assert_eq!(duration_s(42), "42s");
        assert_eq!(duration_s(185), "3m05s");
        assert_eq!(duration_s(7_620), "2h07m");
        assert_eq!(duration_s(273_600), "3d04h");
    }

    #[test]
    fn time_gauge_below_warn_is_green_and_proportional() {
        let buf = render(&time_gauge(6), 30, 3);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Time lag ───────── 10s/60s ┐",
                "│███░░░░░░░░░░░░░░░░░░░░░░ 6s│",
                "└────────────────────────────┘",
            ])
        );
        assert_eq!(buf[(1, 1)].fg, Color::Green);
    }

    #[test]
    fn time_gauge_past_warn_says_warn_in_yellow() {
        let buf = render(&time_gauge(30), 30, 3);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Time lag ───────── 10s/60s ┐",
                "│██████████░░░░░░░░░ 30s WARN│",
                "└────────────────────────────┘",
            ])
        );
        assert_eq!(buf[(1, 1)].fg, Color::Yellow);
        assert_eq!(buf[(0, 0)].fg, Color::Yellow);
    }

    #[test]
    fn time_gauge_past_crit_is_full_and_red() {
        let buf = render(&time_gauge(185), 30, 3);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Time lag ───────── 10s/60s ┐",
                "│█████████████████ 3m05s CRIT│",
                "└────────────────────────────┘",
            ])
        );
        assert_eq!(buf[(1, 1)].fg, Color::Red);
    }

    #[test]
    fn gauge_without_a_status_says_it_waits() {
        let mut g = time_gauge(0);
        g.value = None;
        let buf = render(&g, 40, 3);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Time lag ─────────────────── 10s/60s ┐",
                "│waiting for the first status          │",
                "└──────────────────────────────────────┘",
            ])
        );
    }

    #[test]
    fn counts_panel_shows_both_columns_when_wide() {
        let counts = OpCounts {
            inserts: 1_234,
            updates: 567,
            deletes: 89,
            truncates: 0,
            ddl: 1,
            commits: 3_000,
            rollbacks: 12,
            partial_rollbacks: 3,
        };
        let panel = CountsPanel {
            counts: &counts,
            rows_read: 12_345,
        };
        let buf = render(&panel, 35, 6);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Operations ─────────────────────┐",
                "│insert    1,234  commit     3,000│",
                "│update      567  rollback      12│",
                "│delete       89  partial        3│",
                "│ddl           1  rows      12,345│",
                "└─────────────────────────────────┘",
            ])
        );
    }

    #[test]
    fn counts_panel_drops_the_second_column_when_narrow() {
        let counts = OpCounts {
            inserts: 7,
            ..OpCounts::default()
        };
        let panel = CountsPanel {
            counts: &counts,
            rows_read: 0,
        };
        let buf = render(&panel, 20, 6);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Operations ──────┐",
                "│insert        7   │",
                "│update        0   │",
                "│delete        0   │",
                "│ddl           0   │",
                "└──────────────────┘",
            ])
        );
    }

    #[test]
    fn tx_panel_shows_oldest_age_largest_and_restart() {
        let status = feed::steady_status(10);
        let summary = {
            let mut app = crate::tui::App::new(feed::demo_header(), ViewConfig::default());
            app.update(crate::tui::AppEvent::Engine(
                crate::engine::metrics::EngineMessage::Status(Box::new(status.clone())),
            ));
            app.open_summary()
        };
        // The database lists BATCH's hour-old transaction beside the three
        // capture buffers: the panel names it, not the buffer's oldest, aged
        // as of the database's reading (10 s before the status).
        assert_eq!(
            summary,
            crate::tui::app::OpenSummary {
                count: 4,
                oldest_xid: Some("03000500010F0000".into()),
                oldest_age_s: Some(3_660),
            }
        );
        let panel = TxPanel {
            status: &status,
            open: summary.count,
            oldest_xid: summary.oldest_xid.as_deref(),
            oldest_age_s: summary.oldest_age_s,
            warn_age_s: 600,
        };
        let buf = render(&panel, 38, 6);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Open transactions: 4 ──────────────┐",
                "│oldest      1h01m  03000500010F0000 │",
                "│largest  1,204 ev  04000200A7190000 │",
                "│restart SCN 10041082                │",
                "│commit  SCN 10043296                │",
                "└────────────────────────────────────┘",
            ])
        );
    }

    #[test]
    fn tx_panel_colours_an_old_transaction() {
        let status = feed::steady_status(10);
        let panel = TxPanel {
            status: &status,
            open: 3,
            oldest_xid: Some("07001100102B0000"),
            oldest_age_s: Some(900),
            warn_age_s: 600,
        };
        let buf = render(&panel, 38, 6);
        assert_eq!(buf[(10, 1)].fg, Color::Yellow);
    }

    #[test]
    fn tx_panel_with_nothing_open_says_so() {
        let status = CaptureStatus::default();
        let panel = TxPanel {
            status: &status,
            open: 0,
            oldest_xid: None,
            oldest_age_s: None,
            warn_age_s: 600,
        };
        let buf = render(&panel, 30, 6);
        assert_eq!(
            unstyled(&buf),
            Buffer::with_lines([
                "┌ Open transactions: 0 ──────┐",
                "│none open                   │",
                "│restart SCN 0               │",
                "│commit  SCN 0               │",
                "│                            │",
                "└────────────────────────────┘",
            ])
        );
    }

    #[test]
    fn logs_line_names_thread_sequence_and_kind() {
        let status = feed::steady_status(0);
        let buf = render(&LogsLine { status: &status }, 100, 1);
        let text: String = (0..100).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert_eq!(
            text.trim_end(),
            " logs t1 #1842 archived, t1 #1843 online │ window 10041082–10044100 │ mined 10042100 of 10042340"
        );
    }
}

#[cfg(test)]
mod sparkline_tests {
    use super::sparkline_scale;

    #[test]
    fn one_peak_does_not_flatten_normal_traffic() {
        let mut data = vec![40u64; 59];
        data.push(5_000);
        // Normal seconds fill two thirds of the height, not 1/125 of it.
        assert_eq!(sparkline_scale(&data), 60);
        assert_eq!(sparkline_scale(&[]), 1);
        assert_eq!(sparkline_scale(&[0, 0]), 1);
        // Steady traffic keeps the plain maximum.
        assert_eq!(sparkline_scale(&[50, 55, 59, 52]), 59);
    }
}
