//! `run --snapshot` (issue 13): the initial snapshot taken on the
//! `snapshot-under-fire` scenario, while partitions are truncated, moved,
//! exchanged and dropped, undo is overwritten, a table is dropped and the
//! connection drops, compared with the simulator's table contents.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use cdcctl::source::sim::Sim;

use crate::run::{cdcctl, lines, signal, spawn};

const SCENARIO: &str = "snapshot-under-fire";
/// Well after the snapshot ends (about SCN 13,060,000) with streaming since.
pub(crate) const UNTIL: &str = "13100000";

/// `run` of every table with 500-row chunks into `out.jsonl` / `cp.json`.
pub(crate) fn snapshot_run(extra: &[&'static str]) -> Vec<&'static str> {
    snapshot_run_in_chunks("500", extra)
}

/// [`snapshot_run`] with `rows` per chunk.
fn snapshot_run_in_chunks(rows: &'static str, extra: &[&'static str]) -> Vec<&'static str> {
    snapshot_run_of("sim:snapshot-under-fire?clock=virtual", rows, extra)
}

/// [`snapshot_run_in_chunks`] of another `source`.
pub(crate) fn snapshot_run_of<'a>(
    source: &'a str,
    rows: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "--source",
        source,
        "run",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--until-scn",
        UNTIL,
        "--snapshot-chunk-rows",
        rows,
        "--status-every",
        "1h",
    ];
    args.extend_from_slice(extra);
    args
}

/// (schema, table, key text): every table of the scenario has a one-column
/// numeric key, its first column.
type Key = (String, String, String);

fn str_of(v: &serde_json::Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn scn_of(v: &serde_json::Value) -> u64 {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or(0)
}

fn first_value(image: &serde_json::Value) -> Option<String> {
    image.as_object()?.values().next().map(str_of)
}

/// The output reduced to the last state per key, with the SCN of the event
/// that set it. A DROP TABLE removes the table's keys; changes LogMiner could
/// not name (a dropped table's, `UNKNOWN`) are left out.
pub(crate) fn reduce(events: &[serde_json::Value]) -> BTreeMap<Key, (u64, serde_json::Value)> {
    let mut state: BTreeMap<Key, (u64, serde_json::Value)> = BTreeMap::new();
    for e in events {
        let (schema, table) = (
            str_of(&e["source"]["schema"]),
            str_of(&e["source"]["table"]),
        );
        if let Some(ddl) = e["ddl"].as_str() {
            if ddl.starts_with("DROP TABLE") {
                state.retain(|k, _| !(k.0 == schema && k.1 == table));
            }
            continue;
        }
        if schema == "UNKNOWN" {
            continue;
        }
        let op = e["op"].as_str().unwrap_or_default();
        if op == "t" {
            state.retain(|k, _| !(k.0 == schema && k.1 == table));
            continue;
        }
        let (scn, image) = match op {
            "r" => (scn_of(&e["source"]["scn"]), &e["after"]),
            "d" => (scn_of(&e["source"]["commit_scn"]), &e["before"]),
            _ => (scn_of(&e["source"]["commit_scn"]), &e["after"]),
        };
        let key = (schema, table, first_value(image).expect("a keyed image"));
        if op == "d" {
            state.remove(&key);
        } else {
            state.insert(key, (scn, e["after"].clone()));
        }
    }
    state
}

/// `sim truth --table-state --at-scn` of [`SCENARIO`].
#[allow(clippy::type_complexity)]
fn table_state(dir: &Path, at: &str) -> (BTreeMap<Key, serde_json::Value>, Vec<(Key, u64)>) {
    table_state_of(dir, SCENARIO, at)
}

/// `sim truth --scenario scenario --table-state --at-scn`: rows by key, and
/// keys partition DDL removed with the SCN of the DDL; rows of key-less
/// tables are left out.
#[allow(clippy::type_complexity)]
pub(crate) fn table_state_of(
    dir: &Path,
    scenario: &str,
    at: &str,
) -> (BTreeMap<Key, serde_json::Value>, Vec<(Key, u64)>) {
    let out = cdcctl(
        dir,
        &[
            "sim",
            "truth",
            "--scenario",
            scenario,
            "--table-state",
            "--at-scn",
            at,
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows = BTreeMap::new();
    let mut removed = Vec::new();
    for v in lines(&String::from_utf8_lossy(&out.stdout)) {
        // A table without a key (none in SCENARIO) cannot be compared by key.
        let Some(first) = first_value(&v["key"]) else {
            continue;
        };
        let key = (str_of(&v["schema"]), str_of(&v["table"]), first);
        if v["removed_at_scn"].is_string() {
            removed.push((key, scn_of(&v["removed_at_scn"])));
        } else {
            rows.insert(key, v["row"].clone());
        }
    }
    (rows, removed)
}

/// The output, reduced per key, equals the table contents at --until-scn;
/// rows partition DDL removed after their last event are taken out first,
/// as no row change reports them.
pub(crate) fn assert_reduced_output_is_the_table_state(dir: &Path, events: &[serde_json::Value]) {
    let mut got = reduce(events);
    let (want, removed) = table_state(dir, UNTIL);
    for (key, scn) in &removed {
        if got.get(key).is_some_and(|(at, _)| at < scn) {
            got.remove(key);
        }
    }
    assert_same_rows(&want, &got, |got, want| got == want);
    for table in ["CUSTOMERS", "ORDER_HIS"] {
        assert!(
            want.keys().any(|k| k.1 == table),
            "no {table} rows at {UNTIL}"
        );
    }
}

/// The reduced output `got` holds exactly the keys of `want`, each row
/// `same` as the wanted one.
pub(crate) fn assert_same_rows(
    want: &BTreeMap<Key, serde_json::Value>,
    got: &BTreeMap<Key, (u64, serde_json::Value)>,
    same: impl Fn(&serde_json::Value, &serde_json::Value) -> bool,
) {
    let got_keys: BTreeSet<&Key> = got.keys().collect();
    let want_keys: BTreeSet<&Key> = want.keys().collect();
    let missing: Vec<_> = want_keys.difference(&got_keys).take(5).collect();
    let extra: Vec<_> = got_keys.difference(&want_keys).take(5).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{} rows wanted, {} in the output; missing {missing:?}, extra {extra:?}",
        want.len(),
        got.len()
    );
    let differing: Vec<_> = want
        .iter()
        .filter(|(k, row)| !got.get(*k).is_some_and(|(_, after)| same(after, row)))
        .take(3)
        .map(|(k, row)| format!("{k:?}: want {row}, got {:?}", got.get(k)))
        .collect();
    assert!(differing.is_empty(), "{differing:#?}");
}

/// Each key has at most one `r` event, and each chunk's rows are exactly the
/// table's rows at the chunk's SCN inside the chunk's key range.
fn assert_chunks_are_the_table_at_their_scn(events: &[serde_json::Value]) {
    // Chunk number -> (table, SCN, key -> row).
    let mut chunks: BTreeMap<u64, (String, u64, BTreeMap<i64, serde_json::Value>)> =
        BTreeMap::new();
    let mut seen = HashSet::new();
    let mut last_markers = 0;
    let mut first_markers = 0;
    for e in events.iter().filter(|e| e["op"] == "r") {
        let table = str_of(&e["source"]["table"]);
        let key: i64 = first_value(&e["after"])
            .and_then(|k| k.parse().ok())
            .expect("numeric key");
        assert!(
            seen.insert((table.clone(), key)),
            "{table} key {key} read twice"
        );
        if e["source"]["snapshot"] == "last" {
            last_markers += 1;
        }
        if e["source"]["snapshot"] == "first" {
            first_markers += 1;
        }
        let chunk = e["source"]["snapshot_chunk"]
            .as_u64()
            .expect("chunk number");
        let scn = scn_of(&e["source"]["scn"]);
        let entry = chunks
            .entry(chunk)
            .or_insert_with(|| (table.clone(), scn, BTreeMap::new()));
        assert_eq!(
            (entry.0.as_str(), entry.1),
            (table.as_str(), scn),
            "chunk {chunk}"
        );
        entry.2.insert(key, e["after"].clone());
    }
    assert_eq!(last_markers, 1, "one row marked last");
    assert_eq!(first_markers, 1, "one row marked first");
    // A table's chunk ends at its highest key, except the table's last
    // chunk, which ends nowhere (the table ended there).
    let mut last_chunk: BTreeMap<&str, u64> = BTreeMap::new();
    for (n, (table, _, _)) in &chunks {
        last_chunk.insert(table, *n);
    }
    let mut truth = Sim::from_spec(SCENARIO).expect("scenario");
    let mut floor: BTreeMap<String, i64> = BTreeMap::new();
    let mut checked = 0;
    for (n, (table, scn, rows)) in &chunks {
        let lo = floor.get(table).copied().unwrap_or(i64::MIN);
        let ends_table = table != "AUDIT_TMP" && last_chunk.get(table.as_str()) == Some(n);
        let hi = if ends_table {
            i64::MAX
        } else {
            rows.keys().next_back().copied().unwrap_or(lo)
        };
        let contents = truth
            .table_contents_at(*scn)
            .expect("undo covers the chunk's SCN");
        let t = contents
            .iter()
            .find(|t| &t.name.table == table)
            .unwrap_or_else(|| panic!("{table} exists at {scn}"));
        let want: BTreeMap<i64, serde_json::Value> = t
            .rows
            .iter()
            .filter_map(|(key, values)| {
                let k: i64 = key.first()?.parse().ok()?;
                (k > lo && k <= hi).then(|| {
                    let row: serde_json::Map<String, serde_json::Value> = t
                        .columns
                        .iter()
                        .zip(values)
                        .map(|(c, v)| {
                            (
                                c.clone(),
                                v.clone().map_or(serde_json::Value::Null, Into::into),
                            )
                        })
                        .collect();
                    (k, serde_json::Value::Object(row))
                })
            })
            .collect();
        assert_eq!(
            rows.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "chunk {n} of {table} at SCN {scn}, keys ({lo}, {hi}]"
        );
        assert_eq!(rows, &want, "chunk {n} of {table} at SCN {scn}");
        floor.insert(table.clone(), hi);
        checked += 1;
    }
    assert!(checked > 20, "only {checked} chunks");
}

/// Complete lines in a file (0 while it does not exist).
fn line_count(path: &Path) -> u64 {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count() as u64)
}

pub(crate) fn output(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("out.jsonl")).expect("output");
    assert!(text.is_empty() || text.ends_with('\n'), "torn last line");
    lines(&text)
}

#[test]
fn issue13_snapshot_then_streaming_reduces_to_the_table_contents_under_fire() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &snapshot_run(&[]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let events = output(dir.path());
    assert!(events.iter().any(|e| e["op"] == "r"), "no snapshot rows");
    assert!(events.iter().any(|e| e["op"] == "u"), "no streamed changes");
    assert_reduced_output_is_the_table_state(dir.path(), &events);
    assert_chunks_are_the_table_at_their_scn(&events);
}

#[test]
fn issue13_each_fault_during_the_snapshot_is_survived_and_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Chunks are read at the newest SCN, so undo lost between two reads
    // costs nothing; a 1,500-row read (3.75 s) lasts through an undo loss.
    let out = cdcctl(dir.path(), &snapshot_run_in_chunks("1500", &[]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for needle in [
        "ORA-01555 (snapshot too old) reading chunk",
        "ORA-08103 (object no longer exists) reading chunk",
        "APP.AUDIT_TMP can no longer be read",
        "ORA-03113",
        "APP.ORDER_HIS: snapshot complete",
        "APP.CUSTOMERS: snapshot complete",
    ] {
        assert!(stderr.contains(needle), "`{needle}` not reported: {stderr}");
    }
    // The stopped table's chunks before the drop are in the output, and
    // nothing of it after.
    let events = output(dir.path());
    assert!(events
        .iter()
        .any(|e| e["op"] == "r" && e["source"]["table"] == "AUDIT_TMP"));
    let cp: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("cp.json")).expect("checkpoint"),
    )
    .expect("json");
    let states: Vec<String> = cp["snapshot"]["tables"]
        .as_array()
        .expect("snapshot progress")
        .iter()
        .map(|t| format!("{}:{}", t["table"]["table"], t["state"]))
        .collect();
    assert!(
        states[0].starts_with("\"AUDIT_TMP\":{\"stopped\""),
        "{states:?}"
    );
    assert_eq!(
        &states[1..],
        ["\"CUSTOMERS\":\"done\"", "\"ORDER_HIS\":\"done\""]
    );
}

/// How many times the kill test kills `run` (CDCCTL_CRASH_KILLS, default 12).
fn kills() -> u32 {
    std::env::var("CDCCTL_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

/// Runs `args` `kills` times, each killed with SIGKILL at a pseudo-random
/// moment of the snapshot (after a random number of output lines, plus a
/// random moment within a chunk's write, so the kill lands inside the
/// snapshot however fast the machine is). Returns the SIGKILLs sent, the
/// runs that resumed inside the snapshot and those that resumed inside a
/// chunk the output held part of.
pub(crate) fn kill_during_snapshot(
    dir: &Path,
    args: &[&str],
    kills: u32,
    mut seed: u64,
) -> (u32, u32, u32) {
    let (mut sigkills, mut resumed_inside, mut mid_chunk) = (0, 0, 0);
    for i in 1..=kills {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The snapshot writes about 18,000 rows.
        let grow = 100 + (seed >> 33) % 1500;
        let extra_ms = (seed >> 20) % 40;
        let start = line_count(&dir.join("out.jsonl"));
        let mut child = spawn(dir, args);
        while child.try_wait().expect("try_wait").is_none()
            && line_count(&dir.join("out.jsonl")) < start + grow
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::thread::sleep(std::time::Duration::from_millis(extra_ms));
        if child.try_wait().expect("try_wait").is_none() {
            signal(&child, "KILL");
            sigkills += 1;
        }
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code().is_none() || out.status.code() == Some(0),
            "run {i} (SIGKILL after {grow} lines): {:?}: {stderr}",
            out.status
        );
        if stderr.contains("resuming the snapshot") {
            resumed_inside += 1;
        }
        if stderr.contains("holds part of a chunk of") {
            mid_chunk += 1;
        }
    }
    (sigkills, resumed_inside, mid_chunk)
}

/// Runs `args` under [`kill_during_snapshot`], then once more to its end:
/// at least one SIGKILL landed and one restart resumed inside the snapshot.
/// Returns the SIGKILLs, the restarts inside the snapshot and the output.
pub(crate) fn killed_then_run_to_the_end(
    dir: &Path,
    args: &[&str],
    seed: u64,
) -> (u32, u32, Vec<serde_json::Value>) {
    let (sigkills, resumed_inside, _) = kill_during_snapshot(dir, args, kills(), seed);
    let out = cdcctl(dir, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        sigkills > 0 && resumed_inside > 0,
        "{sigkills} kills, {resumed_inside} resumed inside the snapshot"
    );
    (sigkills, resumed_inside, output(dir))
}

#[test]
fn issue13_killed_at_random_moments_during_the_snapshot_resumes_at_the_chunk_and_emits_nothing_twice(
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = snapshot_run(&[]);
    let (sigkills, resumed_inside, events) =
        killed_then_run_to_the_end(dir.path(), &args, 0x1313_1313_5EED_0001);
    // Nothing streamed twice: each change's position is unique.
    let mut positions = HashSet::new();
    for e in events
        .iter()
        .filter(|e| e["op"].is_string() && e["op"] != "r")
    {
        let p = format!(
            "{}/{}/{}",
            e["source"]["commit_scn"], e["source"]["txId"], e["transaction"]["total_order"]
        );
        assert!(positions.insert(p.clone()), "change {p} written twice");
    }
    assert_reduced_output_is_the_table_state(dir.path(), &events);
    // Read at most once per key, each chunk the table at its SCN.
    assert_chunks_are_the_table_at_their_scn(&events);
    crate::snapshot_exact::assert_each_key_is_one_r_then_its_later_changes(&events);
    eprintln!(
        "{sigkills} SIGKILLs, {resumed_inside} restarts inside the snapshot, {} events",
        events.len()
    );
}

#[test]
fn issue33_killed_during_a_snapshot_written_as_doubles_resumes_after_the_written_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Large chunks, so a kill lands inside a chunk's write.
    let args = snapshot_run_in_chunks("5000", &["--decimal-handling", "double"]);
    let (sigkills, _, mid_chunk) = kill_during_snapshot(dir.path(), &args, 6, 0x3333_0001);
    let out = cdcctl(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        sigkills > 0 && mid_chunk > 0,
        "{sigkills} kills, {mid_chunk} resumed inside a written chunk"
    );
    let events = output(dir.path());
    assert!(
        events
            .iter()
            .any(|e| e["op"] == "r" && e["after"]["ORDER_ID"].is_number()),
        "the keys are written as numbers"
    );
    crate::snapshot_exact::assert_each_key_is_one_r_then_its_later_changes(&events);
}

/// `run APP.ORDERS` on the demo with archives kept 120 s, into `out.jsonl`.
fn short_archives_run(dir: &Path, until: &str, extra: &[&str]) -> std::process::Output {
    let source = format!(
        "sim:{}?clock=virtual",
        dir.join("short.toml").to_str().expect("utf-8 path")
    );
    let mut args = vec![
        "--source",
        source.as_str(),
        "run",
        "APP.ORDERS",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--until-scn",
        until,
        "--status-every",
        "1h",
    ];
    args.extend_from_slice(extra);
    cdcctl(dir, &args)
}

#[test]
fn issue13_when_needed_snapshots_again_when_the_restart_scn_is_no_longer_in_the_logs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = include_str!("../../src/source/sim/scenarios/demo.toml");
    assert!(demo.contains("archive_retention_s = 86400"));
    std::fs::write(
        dir.path().join("short.toml"),
        demo.replace("archive_retention_s = 86400", "archive_retention_s = 120"),
    )
    .expect("scenario");
    let first = short_archives_run(dir.path(), "13060000", &[]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let read_first = output(dir.path()).iter().filter(|e| e["op"] == "r").count();
    assert!(read_first > 500, "{read_first} rows read");
    // The checkpoint's restart SCN goes back to before the oldest archive
    // the scenario keeps: its redo is gone, as after a long outage.
    let cp_path = dir.path().join("cp.json");
    let mut cp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cp_path).expect("checkpoint"))
            .expect("json");
    cp["restart_scn"] = 1_950_000.into();
    // Without its checksum the edited file loads as one an older cdcctl
    // wrote; with it, the edit would be refused as tampering.
    cp.as_object_mut().expect("object").remove("checksum");
    let gone = serde_json::to_string(&cp).expect("json");
    std::fs::write(&cp_path, &gone).expect("checkpoint");

    // Resuming without it stops: the changes in the gap cannot be captured.
    let plain = short_archives_run(dir.path(), "13070000", &[]);
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert_ne!(plain.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("archive gap"), "{stderr}");

    std::fs::write(&cp_path, &gone).expect("checkpoint");
    let again = short_archives_run(dir.path(), "13070000", &["--snapshot", "when-needed"]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("WARNING: the checkpoint's restart SCN 1950000 can no longer be streamed")
            && stderr.contains("snapshotted again")
            && stderr.contains("Rows deleted in the gap get no delete event"),
        "{stderr}"
    );
    let events = output(dir.path());
    let second: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["op"] == "r")
        .skip(read_first)
        .collect();
    let keys: HashSet<String> = second
        .iter()
        .filter_map(|e| e["after"]["ORDER_ID"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        keys.len(),
        second.len(),
        "a key read twice in the second snapshot"
    );
    assert!(second.len() > 500, "{} rows read again", second.len());
    let cp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cp_path).expect("checkpoint"))
            .expect("json");
    assert!(cp["restart_scn"].as_u64().unwrap_or(0) > 13_000_000, "{cp}");
    assert_eq!(cp["snapshot"]["tables"][0]["state"], "done", "{cp}");
    // With the checkpoint streamable again, when-needed just resumes.
    let resumed = short_archives_run(dir.path(), "13075000", &["--snapshot", "when-needed"]);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("snapshotted again"), "{stderr}");
    let after = output(dir.path());
    assert_eq!(
        after.iter().filter(|e| e["op"] == "r").count(),
        events.iter().filter(|e| e["op"] == "r").count()
    );
    assert!(after.len() > events.len(), "the stream went on");
}

/// A run stopped part-way through its snapshot: `status` and `tail
/// --checkpoint` (read-only) say which table it was reading and how far
/// the snapshot got.
#[test]
fn issue13_status_and_tail_show_an_unfinished_snapshot_from_the_checkpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &snapshot_run(&["--count", "3000"]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let before = std::fs::read(dir.path().join("cp.json")).expect("checkpoint");
    let status = cdcctl(dir.path(), &["status", "--checkpoint", "cp.json"]);
    let text = String::from_utf8_lossy(&status.stdout);
    // --count ended the run as asked: finished, with no error to report.
    assert!(text.contains("(last state finished)"), "{text}");
    assert!(!text.contains("Last error"), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("Snapshot "))
        .unwrap_or_else(|| panic!("no snapshot line: {text}"));
    // The dropped AUDIT_TMP is stopped for good; a later table is being
    // read (which one depends on how the readers and the stream met
    // within the 3,000 events).
    let summary = line
        .strip_prefix("Snapshot")
        .map(str::trim)
        .unwrap_or_default();
    let reading = [
        "table 2 of 3 (1 done), APP.CUSTOMERS: ",
        "table 3 of 3 (2 done), APP.ORDER_HIS: ",
    ]
    .into_iter()
    .find(|p| summary.starts_with(p));
    assert!(
        reading.is_some()
            && summary.contains(" chunks in all")
            && summary.ends_with("; stopped: APP.AUDIT_TMP"),
        "{line}"
    );
    let json = cdcctl(
        dir.path(),
        &["status", "--checkpoint", "cp.json", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("status JSON");
    assert_eq!(
        v["snapshot"].as_str(),
        Some(summary),
        "one summary in both formats"
    );
    let tail = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:snapshot-under-fire",
            "tail",
            "APP.CUSTOMERS",
            "--plain",
            "--count",
            "1",
            "--lag-every",
            "0",
            "--checkpoint",
            "cp.json",
        ],
    );
    let err = String::from_utf8_lossy(&tail.stderr);
    assert_eq!(tail.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("cdcctl tail: snapshot: {summary}")),
        "{err}"
    );
    // Following is reading: the checkpoint is as the run left it.
    assert_eq!(
        std::fs::read(dir.path().join("cp.json")).expect("checkpoint"),
        before
    );
    let missing = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim",
            "tail",
            "ORDERS",
            "--plain",
            "--checkpoint",
            "nope.json",
        ],
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("--checkpoint nope.json: no such file")
    );
}

/// `source.snapshot` of each event of an `initial-only` run over 40 rows
/// read in 10-row chunks while nothing changes, with `extra` flags.
fn markers_of_a_quiet_40_row_snapshot(extra: &[&str]) -> Vec<String> {
    // 40 rows, no changes while they are read, 10-row chunks: the fourth
    // chunk is full and nothing follows it.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut scenario = include_str!("../../benches/soak.toml").to_string();
    for (from, to) in [
        ("rows = 20000", "rows = 40"),
        ("rate = 55000.0", "rate = 0.01"),
        ("warmup_s = 5", "warmup_s = 0"),
    ] {
        assert!(
            scenario.contains(from),
            "benches/soak.toml no longer has `{from}`"
        );
        scenario = scenario.replace(from, to);
    }
    std::fs::write(dir.path().join("quiet.toml"), scenario).expect("scenario");
    let mut args = vec![
        "--source",
        "sim:quiet.toml?clock=virtual",
        "run",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--snapshot",
        "initial-only",
        "--snapshot-chunk-rows",
        "10",
    ];
    args.extend(extra);
    let out = cdcctl(dir.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    output(dir.path())
        .iter()
        .map(|e| str_of(&e["source"]["snapshot"]))
        .collect()
}

#[test]
fn a_table_of_exactly_full_chunks_ends_its_snapshot_with_one_last_row() {
    let markers = markers_of_a_quiet_40_row_snapshot(&[]);
    assert_eq!(markers.len(), 40);
    assert_eq!(markers[0], "first");
    assert!(markers[1..39].iter().all(|m| m == "true"), "{markers:?}");
    assert_eq!(markers[39], "last");
}

#[test]
fn snapshot_marks_incremental_marks_every_read_row_as_debezium_does_issue33() {
    let markers = markers_of_a_quiet_40_row_snapshot(&["--snapshot-marks", "incremental"]);
    assert_eq!(markers.len(), 40);
    assert!(markers.iter().all(|m| m == "incremental"), "{markers:?}");
}

#[test]
fn a_run_that_ends_at_until_scn_before_its_snapshot_can_finish_says_why() {
    // The demo's database is past 13,040,000 when the run starts, so no
    // chunk can be written before the stream stops there.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.ORDERS",
            "--output",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
            "--until-scn",
            "13040000",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(output(dir.path()).is_empty(), "nothing can be written");
    assert!(
        stderr.contains("warning: the snapshot is not finished at --until-scn (0 rows so far)"),
        "{stderr}"
    );
}
