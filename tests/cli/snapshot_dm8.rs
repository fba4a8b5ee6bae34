//! `run` with an initial snapshot on DM8 (issue 34): each chunk a flashback
//! read `AS OF SCN` an LSN, reconciled with the stream by the same gate as
//! Oracle's, compared per key with the simulator's table contents, also
//! across SIGKILLs; and refused where DM8's flashback is off.

use std::path::Path;

use crate::run::cdcctl;
use crate::snapshot::{
    assert_same_rows, killed_then_run_to_the_end, output, reduce, table_state_of,
};

/// Past the end of the snapshot (near LSN 55,400) with streaming since.
const UNTIL: &str = "62000";
const TABLES: [&str; 2] = ["APP.ORDERS", "APP.ALL_TYPES"];

/// `run` of the keyed tables of `sim:dm8` with 50-row chunks.
fn dm8_snapshot_run(source: &'static str) -> Vec<&'static str> {
    let mut args = vec!["--source", source, "run"];
    args.extend(TABLES);
    args.extend([
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--until-scn",
        UNTIL,
        "--snapshot-chunk-rows",
        "50",
        "--status-every",
        "1h",
    ]);
    args
}

/// A value DM8's log never holds (a LOB kept out of the row), in a text
/// or a binary column: equal to whatever the table holds.
fn unavailable(v: &serde_json::Value) -> bool {
    v == "__debezium_unavailable_value" || v == "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="
}

fn same_row(got: &serde_json::Value, want: &serde_json::Value) -> bool {
    let (Some(g), Some(w)) = (got.as_object(), want.as_object()) else {
        return got == want;
    };
    g.len() == w.len()
        && w.iter()
            .all(|(c, wv)| g.get(c).is_some_and(|gv| gv == wv || unavailable(gv)))
}

/// The output reduced per key equals `sim truth --table-state` of `dm8`
/// at [`UNTIL`] for the captured tables.
fn assert_reduced_output_is_the_dm8_truth(dir: &Path, events: &[serde_json::Value]) {
    let got = reduce(events);
    let (mut want, _) = table_state_of(dir, "dm8", UNTIL);
    want.retain(|k, _| TABLES.contains(&format!("{}.{}", k.0, k.1).as_str()));
    assert_same_rows(&want, &got, same_row);
    for table in ["ORDERS", "ALL_TYPES"] {
        assert!(want.keys().any(|k| k.1 == table), "no {table} rows");
    }
}

#[test]
fn issue34_dm8_initial_snapshot_then_streaming_reduces_to_the_ground_truth() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &dm8_snapshot_run("sim:dm8?clock=virtual"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("APP.ORDERS: snapshot complete"), "{stderr}");
    let events = output(dir.path());
    let reads = events.iter().filter(|e| e["op"] == "r").count();
    assert!(reads > 500, "{reads} snapshot rows");
    assert!(events.iter().any(|e| e["op"] == "u"), "no streamed changes");
    assert!(events.iter().all(|e| e["source"]["connector"] == "dm"));
    assert_reduced_output_is_the_dm8_truth(dir.path(), &events);
    crate::snapshot_exact::assert_each_key_is_one_r_then_its_later_changes(&events);
}

#[test]
fn issue34_dm8_killed_during_the_snapshot_resumes_and_ends_equal_to_the_ground_truth() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = dm8_snapshot_run("sim:dm8?clock=virtual");
    let (sigkills, resumed_inside, events) =
        killed_then_run_to_the_end(dir.path(), &args, 0x3434_0D38_5EED_0001);
    assert_reduced_output_is_the_dm8_truth(dir.path(), &events);
    crate::snapshot_exact::assert_each_key_is_one_r_then_its_later_changes(&events);
    eprintln!(
        "{sigkills} SIGKILLs, {resumed_inside} restarts inside the snapshot, {} events",
        events.len()
    );
}

/// The `dm8` built-in with flashback off, written to `dir`.
fn dm8_without_flashback(dir: &Path) -> String {
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/source/sim/scenarios/dm8.toml");
    let text = std::fs::read_to_string(builtin)
        .expect("dm8.toml")
        .replace("enable_flashback = true", "enable_flashback = false");
    assert!(text.contains("enable_flashback = false"), "{text}");
    let path = dir.join("dm8-no-flashback.toml");
    std::fs::write(&path, text).expect("write scenario");
    format!("sim:{}?clock=virtual", path.display())
}

#[test]
fn issue34_dm8_without_flashback_refuses_the_snapshot_and_streams_with_snapshot_never() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = dm8_without_flashback(dir.path());
    let base = [
        "--source",
        source.as_str(),
        "run",
        "APP.ORDERS",
        "-o",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--count",
        "20",
    ];
    for extra in [&[][..], &["--snapshot", "initial"][..]] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let o = cdcctl(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(4), "{extra:?}: {stderr}");
        assert!(stderr.contains("ENABLE_FLASHBACK = 0"), "{stderr}");
        assert!(stderr.contains("--snapshot never"), "{stderr}");
        assert!(!dir.path().join("cp.json").exists(), "no checkpoint");
    }
    let mut never = base.to_vec();
    never.extend(["--snapshot", "never"]);
    let o = cdcctl(dir.path(), &never);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let events = output(dir.path());
    assert_eq!(events.len(), 20);
    assert!(events.iter().all(|e| e["op"] != "r"));
}
