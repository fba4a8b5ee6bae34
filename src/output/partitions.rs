//! The human `cdcctl partitions` report: the partitioning scheme, one row per
//! partition, then the risks and what to do about them.

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use crate::preflight::partitions::PartitionReport;

fn size(b: Option<u64>) -> String {
    match b {
        None => "-".into(),
        Some(b) if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        Some(b) => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
    }
}

/// Renders the report at `width` columns.
pub fn render(r: &PartitionReport, width: u16) -> String {
    let mut out = format!("{}\n", r.table);
    if !r.partitioned {
        out.push_str("  not partitioned\n");
        return out;
    }
    out.push_str(&format!(
        "  partitioning: {} ({}){}{}\n",
        r.partitioning_type.clone().unwrap_or_default(),
        r.key_columns.join(", "),
        r.interval
            .as_ref()
            .map(|i| format!(", interval {i}"))
            .unwrap_or_default(),
        r.subpartitioning_type
            .as_ref()
            .map(|s| format!(", subpartitioned by {s}"))
            .unwrap_or_default()
    ));
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .force_no_tty()
        .set_header(vec![
            "partition",
            "high value",
            "rows",
            "size",
            "object id",
            "data obj id",
            "last DDL",
        ]);
    for p in &r.partitions {
        t.add_row(vec![
            Cell::new(format!(
                "{}{}",
                p.name,
                if p.interval { " (interval)" } else { "" }
            )),
            Cell::new(&p.high_value),
            Cell::new(p.rows.map(|n| n.to_string()).unwrap_or_else(|| "-".into()))
                .set_alignment(CellAlignment::Right),
            Cell::new(size(p.bytes)).set_alignment(CellAlignment::Right),
            Cell::new(p.object_id).set_alignment(CellAlignment::Right),
            Cell::new(
                p.data_object_id
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "-".into()),
            )
            .set_alignment(CellAlignment::Right),
            Cell::new(
                p.last_ddl_time
                    .map(|d| d.to_string())
                    .unwrap_or_else(|| "-".into()),
            ),
        ]);
    }
    out.push_str(&t.to_string());
    out.push('\n');
    if r.risks.is_empty() {
        out.push_str(&format!(
            "no risk found for a snapshot of ~{} min\n",
            (r.snapshot_estimate_s / 60).max(1)
        ));
    } else {
        out.push_str("risks:\n");
        for k in &r.risks {
            out.push_str(&format!("  - {}\n", k.detail));
        }
        out.push_str("advice:\n");
        for a in &r.advice {
            out.push_str(&format!("  - {a}\n"));
        }
        if let Some(sql) = &r.statements {
            out.push_str("statements, in order:\n");
            for line in sql.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    out
}
