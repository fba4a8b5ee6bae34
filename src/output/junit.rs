//! JUnit XML for CI: one testsuite per check group, one testcase per check;
//! findings at or above `--fail-on` are `<failure>`, skips are `<skipped>`.

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

/// Renders the report as JUnit XML.
pub fn render(report: &Report, fail_on: Status) -> String {
    let failed = |c: &CheckResult| c.status != Status::Skip && c.status >= fail_on;
    let total_fail = report.checks.iter().filter(|c| failed(c)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"cdcctl preflight\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
        report.checks.len(),
        total_fail,
        report.summary.skip
    ));
    let mut groups: Vec<&str> = report.checks.iter().map(|c| c.group.as_str()).collect();
    groups.sort_by_key(|g| group_rank(g));
    groups.dedup();
    for g in groups {
        let cs: Vec<&CheckResult> = report.checks.iter().filter(|c| c.group == g).collect();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
            esc(g),
            cs.len(),
            cs.iter().filter(|c| failed(c)).count(),
            cs.iter().filter(|c| c.status == Status::Skip).count()
        ));
        for c in cs {
            out.push_str(&format!(
                "    <testcase classname=\"preflight.{}\" name=\"{}: {}\">\n",
                esc(g),
                esc(&c.id),
                esc(&c.title)
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
                out.push_str(&format!(
                    "      <system-out>{}: {}</system-out>\n",
                    c.status.as_str(),
                    esc(&c.detail)
                ));
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
        let on_fail = render(&r, Status::Fail);
        assert!(!on_fail.contains("<failure"));
        assert!(on_fail.contains("a &lt; b &amp; &quot;c&quot;"));
        let on_warn = render(&r, Status::Warn);
        assert!(on_warn.contains("<failure type=\"warn\""));
        assert!(on_warn.contains("failures=\"1\""));
    }
}
