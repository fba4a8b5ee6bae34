//! The human preflight report: one table per check group, the remediation
//! under each warning and failure, a one-line summary. Colour only on a
//! terminal.

use comfy_table::{presets, Cell, CellAlignment, Color, ContentArrangement, Table};

use crate::preflight::defs::group_rank;
use crate::preflight::model::{CheckResult, Report, Status, Summary};

pub use super::DEFAULT_WIDTH;

fn status_cell(s: Status, color: bool) -> Cell {
    let label = s.as_str().to_ascii_uppercase();
    let cell = Cell::new(label).set_alignment(CellAlignment::Center);
    if !color {
        return cell;
    }
    match s {
        Status::Pass => cell.fg(Color::Green),
        Status::Warn => cell.fg(Color::Yellow),
        Status::Fail => cell.fg(Color::Red),
        Status::Skip => cell.fg(Color::DarkGrey),
    }
}

fn detail_text(c: &CheckResult) -> String {
    let mut s = c.detail.clone();
    for e in &c.evidence {
        s.push_str("\n· ");
        s.push_str(e);
    }
    s
}

/// Renders the report; `width` is the terminal width, `color` turns on ANSI colours.
pub fn render(report: &Report, width: u16, color: bool) -> String {
    let mut out = String::new();
    let src = &report.source;
    out.push_str(&format!(
        "cdcctl preflight: {} ({} {}{}, user {}{})\n",
        src.source,
        src.dialect,
        if src.version.is_empty() {
            "?"
        } else {
            &src.version
        },
        if src.cdb {
            format!(", CDB {}", src.db_name)
        } else if src.db_name.is_empty() {
            String::new()
        } else {
            format!(", {}", src.db_name)
        },
        if src.user.is_empty() { "?" } else { &src.user },
        if src.container.is_empty() {
            String::new()
        } else {
            format!(" in {}", src.container)
        },
    ));
    if !src.scope.is_empty() {
        out.push_str(&format!("scope: {}\n", src.scope.join(", ")));
    }
    if let Some(c) = &src.config {
        out.push_str(&format!("config: {c}\n"));
    }
    let mut groups: Vec<&str> = report.checks.iter().map(|c| c.group.as_str()).collect();
    groups.sort_by_key(|g| group_rank(g));
    groups.dedup();
    for g in groups {
        let checks: Vec<&CheckResult> = report.checks.iter().filter(|c| c.group == g).collect();
        out.push('\n');
        out.push_str(&format!("{}\n", group_title(g)));
        let mut t = Table::new();
        t.load_preset(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(width)
            .set_header(vec!["status", "check", "detail"]);
        if !color {
            t.force_no_tty();
        }
        for c in &checks {
            t.add_row(vec![
                status_cell(c.status, color),
                Cell::new(&c.id),
                Cell::new(detail_text(c)),
            ]);
        }
        out.push_str(&t.to_string());
        out.push('\n');
        for c in checks
            .iter()
            .filter(|c| matches!(c.status, Status::Warn | Status::Fail))
        {
            if let Some(r) = &c.remediation {
                out.push_str(&format!(
                    "  {} {} — {}\n",
                    c.status.as_str().to_ascii_uppercase(),
                    c.id,
                    c.title
                ));
                for line in r.lines() {
                    out.push_str(&format!("      {line}\n"));
                }
            }
        }
    }
    out.push_str(&summary_line(report.summary));
    out
}

/// The last line: counts per status, in the singular where one.
fn summary_line(s: Summary) -> String {
    let total = s.pass + s.warn + s.fail + s.skip;
    format!(
        "\n{}: {} passed, {}, {} failed, {} skipped\n",
        super::count(total as u64, "check", "checks"),
        s.pass,
        super::count(s.warn as u64, "warning", "warnings"),
        s.fail,
        s.skip
    )
}

fn group_title(g: &str) -> &'static str {
    match g {
        "instance" => "Instance and logging",
        "redo-archive" => "Redo and archive",
        "privileges" => "Privileges",
        "multitenant" => "Multitenant",
        "snapshot-undo" => "Snapshot and undo",
        "table" => "Tables",
        "partitions" => "Partitions",
        "config" => "Connector config",
        "dm" => "Dameng DM8",
        "yashandb" => "YashanDB YStream",
        _ => "Other checks",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_says_one_warning_and_one_check_in_the_singular_issue36() {
        let one = Summary {
            pass: 0,
            warn: 1,
            fail: 0,
            skip: 0,
        };
        assert_eq!(
            summary_line(one),
            "\n1 check: 0 passed, 1 warning, 0 failed, 0 skipped\n"
        );
        let many = Summary {
            pass: 30,
            warn: 2,
            fail: 1,
            skip: 2,
        };
        assert_eq!(
            summary_line(many),
            "\n35 checks: 30 passed, 2 warnings, 1 failed, 2 skipped\n"
        );
    }
}
