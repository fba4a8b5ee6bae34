//! JUnit XML for CI: one testsuite per check group, one testcase per check;
//! findings at or above `--fail-on` are `<failure>`, skips are `<skipped>`,
//! warnings below `--fail-on` stay visible as a `status` property and a
//! `WARN:` line in `<system-out>`. Suites carry the `errors`, `time`,
//! `timestamp` and `hostname` attributes CI systems read.

use crate::preflight::defs::group_rank;
use crate::preflight::model::{CheckResult, Report, Status};

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => o.push(c),
        }
    }
    o
}

fn body(c: &CheckResult) -> String {
    let mut s = String::new();
    for e in &c.evidence {
        s.push_str(e);
        s.push('\n');
    }
    if let Some(r) = &c.remediation {
        s.push_str("remediation:\n");
        s.push_str(r);
        s.push('\n');
    }
    s
}

fn body_with_detail(c: &CheckResult) -> String {
    format!("{}\n{}", c.detail, body(c))
}

/// When and where the checks ran, and how long each took.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    /// ISO 8601 local time without offset, as JUnit's schema has it.
    pub timestamp: String,
    pub hostname: String,
    /// Seconds spent gathering facts (queries, the smoke mine).
    pub gather_s: f64,
    /// Seconds each check's rule took, by check id.
    pub check_s: std::collections::BTreeMap<String, f64>,
}

impl RunInfo {
    fn case_s(&self, id: &str) -> f64 {
        self.check_s.get(id).copied().unwrap_or(0.0)
    }
}

/// The report of a run that ended before any check could be evaluated (a
/// source unreachable, a config unreadable): one suite whose one case is an
/// `<error>` naming the error and the exit code, so CI reads why rather
/// than an empty file.
pub fn render_error(message: &str, exit_code: u8, info: &RunInfo) -> String {
    let first = message.lines().next().unwrap_or(message);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <testsuites name=\"cdcctl preflight\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"{t:.3}\" timestamp=\"{ts}\">\n  \
         <testsuite name=\"preflight\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"{t:.6}\" timestamp=\"{ts}\" hostname=\"{host}\">\n    \
         <testcase classname=\"preflight\" name=\"preflight could not run\" time=\"{t:.6}\">\n      \
         <properties><property name=\"exit_code\" value=\"{exit_code}\"/></properties>\n      \
         <error type=\"exit {exit_code}\" message=\"{msg}\">{body}\n</error>\n    \
         </testcase>\n  </testsuite>\n</testsuites>\n",
        t = info.gather_s,
        ts = esc(&info.timestamp),
        host = esc(&info.hostname),
        msg = esc(first),
        body = esc(message),
    )
}

/// Renders the report as JUnit XML.
pub fn render(report: &Report, fail_on: Status, info: &RunInfo) -> String {
    let failed = |c: &CheckResult| c.status != Status::Skip && c.status >= fail_on;
    let total_fail = report.checks.iter().filter(|c| failed(c)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total_s = info.gather_s
        + report
            .checks
            .iter()
            .map(|c| info.case_s(&c.id))
            .sum::<f64>();
    out.push_str(&format!(
        "<testsuites name=\"cdcctl preflight\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{total_s:.3}\" timestamp=\"{}\">\n",
        report.checks.len(),
        total_fail,
        report.summary.skip,
        esc(&info.timestamp)
    ));
    let mut groups: Vec<&str> = report.checks.iter().map(|c| c.group.as_str()).collect();
    groups.sort_by_key(|g| group_rank(g));
    groups.dedup();
    for g in groups {
        let cs: Vec<&CheckResult> = report.checks.iter().filter(|c| c.group == g).collect();
        let suite_s: f64 = cs.iter().map(|c| info.case_s(&c.id)).sum();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{suite_s:.6}\" timestamp=\"{}\" hostname=\"{}\">\n",
            esc(g),
            cs.len(),
            cs.iter().filter(|c| failed(c)).count(),
            cs.iter().filter(|c| c.status == Status::Skip).count(),
            esc(&info.timestamp),
            esc(&info.hostname)
        ));
        for c in cs {
            // Microseconds: a rule over facts already read takes less than
            // a millisecond, which three decimals would show as nothing.
            out.push_str(&format!(
                "    <testcase classname=\"preflight.{}\" name=\"{}: {}\" time=\"{:.6}\">\n",
                esc(g),
                esc(&c.id),
                esc(&c.title),
                info.case_s(&c.id)
            ));
            out.push_str(&format!(
                "      <properties><property name=\"status\" value=\"{}\"/></properties>\n",
                c.status.as_str()
            ));
            if c.status == Status::Skip {
                out.push_str(&format!(
                    "      <skipped message=\"{}\"/>\n",
                    esc(&c.detail)
                ));
            } else if failed(c) {
                out.push_str(&format!(
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                    c.status.as_str(),
                    esc(&c.detail),
                    esc(&body(c))
                ));
            } else {
                // A warning below --fail-on passes, but must not read as a pass.
                let text = if c.status == Status::Warn {
                    format!("WARN: {}", body_with_detail(c))
                } else {
                    format!("{}: {}", c.status.as_str(), c.detail)
                };
                out.push_str(&format!("      <system-out>{}</system-out>\n", esc(&text)));
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preflight::model::{SourceInfo, Summary};

    #[test]
    fn warnings_fail_only_when_fail_on_is_warn_and_text_is_escaped() {
        let checks = vec![CheckResult {
            id: "redo-size".into(),
            group: "redo-archive".into(),
            status: Status::Warn,
            title: "t".into(),
            detail: "a < b & \"c\"".into(),
            evidence: vec![],
            remediation: Some("ALTER DATABASE".into()),
            references: vec![],
        }];
        let r = Report {
            source: SourceInfo::default(),
            summary: Summary::of(&checks),
            checks,
        };
        let info = RunInfo {
            timestamp: "2026-11-30T21:00:00".into(),
            hostname: "ci-7".into(),
            gather_s: 1.5,
            check_s: [("redo-size".to_string(), 0.25)].into_iter().collect(),
        };
        let on_fail = render(&r, Status::Fail, &info);
        assert!(!on_fail.contains("<failure"));
        assert!(on_fail.contains("<system-out>WARN: a &lt; b"), "{on_fail}");
        assert!(on_fail.contains("<property name=\"status\" value=\"warn\"/>"));
        assert!(
            on_fail.contains(
                "errors=\"0\" skipped=\"0\" time=\"1.750\" timestamp=\"2026-11-30T21:00:00\">"
            ),
            "{on_fail}"
        );
        assert!(on_fail.contains("hostname=\"ci-7\""));
        assert!(
            on_fail.contains("time=\"0.250000\">"),
            "a case's time to the microsecond"
        );
        assert!(on_fail.contains("a &lt; b &amp; &quot;c&quot;"));
        let on_warn = render(&r, Status::Warn, &info);
        assert!(on_warn.contains("<failure type=\"warn\""));
        assert!(on_warn.contains("failures=\"1\""));
    }
}
