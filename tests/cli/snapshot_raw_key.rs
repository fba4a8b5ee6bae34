//! A snapshot keyed by a RAW(16) (a SYS_GUID key) killed inside its chunks
//! (issue 33): the output writes the key as base64 or hex, the next read
//! binds it back as the RAW's hex, and Oracle orders RAW keys by their
//! bytes. Per key the output is one `r`, then the later changes, and it
//! reduces to the table.

use std::collections::BTreeMap;
use std::path::Path;

use crate::run::{cdcctl, lines};
use crate::snapshot::{kill_during_snapshot, output, reduce, snapshot_run_of, UNTIL};
use crate::snapshot_exact::assert_each_key_is_one_r_then_its_later_changes;
use crate::snapshot_keyless::one_table_scenario;

/// APP.DOCS, keyed by a RAW(16).
fn scenario() -> String {
    let table = r#"owner = "APP"
name = "DOCS"
primary_key = ["DOC_ID"]
columns = [
  { name = "DOC_ID", type = "RAW(16)", nullable = false },
  { name = "TITLE", type = "VARCHAR2(40)" },
  { name = "AMOUNT", type = "NUMBER(12,2)" },
]"#;
    one_table_scenario("raw-key", table, "")
}

const SOURCE: &str = "sim:raw-key.toml?clock=virtual";

fn run_args(binary: &'static str) -> Vec<&'static str> {
    snapshot_run_of(SOURCE, "500", &["--binary-handling", binary])
}

/// `sim truth --table-state` in the run's binary form: row by key.
fn truth(dir: &Path, binary: &str) -> BTreeMap<String, serde_json::Value> {
    let args = [
        "--source",
        SOURCE,
        "sim",
        "truth",
        "--table-state",
        "--at-scn",
        UNTIL,
        "--binary-handling",
        binary,
    ];
    let out = cdcctl(dir, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .map(|v| {
            (
                v["key"]["DOC_ID"].as_str().unwrap_or_default().to_string(),
                v["row"].clone(),
            )
        })
        .collect()
}

fn killed_inside_chunks_ends_as_the_table(binary: &'static str, seed: u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("raw-key.toml"), scenario()).expect("scenario");
    let args = run_args(binary);
    // Cut a few rows into the first chunk, then resumed after its last
    // written key: the deterministic case of the kills below.
    let cut: Vec<&str> = args.iter().copied().chain(["--count", "40"]).collect();
    let out = cdcctl(dir.path(), &cut);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let on: Vec<&str> = args.iter().copied().chain(["--count", "2000"]).collect();
    let out = cdcctl(dir.path(), &on);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let resumed = stderr
        .lines()
        .find(|l| l.contains("its read goes on after key ("))
        .unwrap_or_else(|| panic!("no resume inside a chunk: {stderr}"));
    let key = resumed
        .rsplit('(')
        .next()
        .unwrap_or_default()
        .trim_end_matches(')');
    assert!(
        key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit()),
        "the key is bound back as the RAW's hex: {resumed}"
    );
    let (sigkills, _, _) = kill_during_snapshot(dir.path(), &args, 6, seed);
    assert!(sigkills > 0, "no kill landed");
    let out = cdcctl(dir.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = output(dir.path());
    assert_each_key_is_one_r_then_its_later_changes(&events);
    let got: BTreeMap<String, serde_json::Value> = reduce(&events)
        .into_iter()
        .map(|((_, _, key), (_, row))| (key, row))
        .collect();
    let want = truth(dir.path(), binary);
    assert!(
        want.len() > 1000,
        "the table is nearly empty: the test covers little"
    );
    let differing: Vec<&String> = want
        .keys()
        .filter(|k| got.get(*k) != want.get(*k))
        .collect();
    assert!(
        differing.is_empty() && got.len() == want.len(),
        "{} rows held, {} in the table; differing: {:?}",
        got.len(),
        want.len(),
        &differing[..differing.len().min(3)]
    );
}

#[test]
fn issue33_a_raw_key_written_as_base64_resumes_after_kills_and_ends_as_the_table() {
    killed_inside_chunks_ends_as_the_table("base64", 0x0033_07a3_0001);
}

#[test]
fn issue33_a_raw_key_written_as_hex_resumes_after_kills_and_ends_as_the_table() {
    killed_inside_chunks_ends_as_the_table("hex", 0x0033_07a3_0002);
}
