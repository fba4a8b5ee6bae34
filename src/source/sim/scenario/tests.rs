//! Scenario loading and parsing: built-ins, and errors that name their line and key.

use super::*;

#[test]
fn every_builtin_parses() {
    for b in BUILTINS {
        if let Err(e) = Scenario::load(b.name) {
            panic!("built-in {} does not load: {e}", b.name);
        }
    }
}

#[test]
fn unknown_builtin_lists_the_builtins() {
    let e = Scenario::load("nope").unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("demo") && text.contains("oracle11g"),
        "{text}"
    );
}

#[test]
fn unknown_key_reports_line_key_and_allowed_keys() {
    let text = "[instance]\nversion = \"19c\"\ncdb = true\npdbs = [\"P1\"]\nlog_moed = \"ARCHIVELOG\"\n[connection]\nuser = \"U\"\n";
    let e = Scenario::parse(text, "t.toml").unwrap_err();
    match &e {
        ScenarioError::Syntax {
            line, key, message, ..
        } => {
            assert_eq!(*line, 5);
            assert_eq!(key, "log_moed");
            assert!(message.contains("log_mode"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_character_set_cdcctl_cannot_decode_is_refused_naming_the_key() {
    let text =
        "[instance]\nversion = \"19c\"\ncharacterset = \"XX8NOSUCH\"\n[connection]\nuser = \"U\"\n";
    let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
    assert!(
        s.contains("instance.characterset") && s.contains("XX8NOSUCH") && s.contains("ZHS16GBK"),
        "{s}"
    );
    let gbk =
        "[instance]\nversion = \"19c\"\ncharacterset = \"ZHS16GBK\"\n[connection]\nuser = \"U\"\n";
    let parsed = Scenario::parse(gbk, "t.toml").expect("GBK is decodable");
    assert_eq!(parsed.instance.characterset, "ZHS16GBK");
}

#[test]
fn bad_enum_value_lists_the_allowed_values() {
    let text =
        "[instance]\nversion = \"19c\"\nlog_mode = \"ARCHIVE\"\n[connection]\nuser = \"U\"\n";
    let e = Scenario::parse(text, "t.toml").unwrap_err();
    let s = e.to_string();
    assert!(
        s.contains("line 3") && s.contains("log_mode") && s.contains("NOARCHIVELOG"),
        "{s}"
    );
}

#[test]
fn bad_column_type_reports_its_line_and_the_allowed_types() {
    let text = "[instance]\nversion = \"19c\"\n[connection]\nuser = \"U\"\n[[tables]]\nowner = \"A\"\nname = \"T\"\ncolumns = [\n  { name = \"X\", type = \"VARCHAR\" },\n]\n";
    let e = Scenario::parse(text, "t.toml").unwrap_err();
    let s = e.to_string();
    assert!(
        s.contains("line 9") && s.contains("`type`") && s.contains("VARCHAR2(n)"),
        "{s}"
    );
}

#[test]
fn unknown_key_inside_an_inline_table_is_named() {
    let text = "[instance]\nversion = \"19c\"\n[connection]\nuser = \"U\"\n[[tables]]\nowner = \"A\"\nname = \"T\"\ncolumns = [\n  { name = \"X\", typ = \"NUMBER\" },\n]\n";
    let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
    assert!(
        s.contains("line 9") && s.contains("key `typ`") && s.contains("`type`"),
        "{s}"
    );
}

#[test]
fn a_section_missing_from_the_file_is_named_without_a_line_or_a_comment_as_its_key() {
    let text = "# my drill\nname = \"x\"\nseed = 1\n";
    let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
    assert!(s.starts_with("t.toml: missing field `instance`"), "{s}");
    assert!(!s.contains("line 1") && !s.contains("# my drill"), "{s}");
}

#[test]
fn bad_version_lists_the_versions() {
    let text = "[instance]\nversion = \"10g\"\n[connection]\nuser = \"U\"\n";
    let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
    assert!(
        s.contains("line 2") && s.contains("19c") && s.contains("23ai"),
        "{s}"
    );
}

/// A scenario of tables `A.T0`, `A.T1`, ... with these initial rows.
fn with_rows(rows: &[u64]) -> String {
    let mut text = "[instance]\nversion = \"19c\"\n[connection]\nuser = \"U\"\n".to_string();
    for (i, n) in rows.iter().enumerate() {
        text.push_str(&format!(
            "[[tables]]\nowner = \"A\"\nname = \"T{i}\"\nrows = {n}\nprimary_key = [\"ID\"]\ncolumns = [{{ name = \"ID\", type = \"NUMBER(18)\" }}]\n"
        ));
    }
    text
}

#[test]
fn initial_rows_past_the_memory_bound_are_refused_issue31() {
    // Ten million rows of a nine-column table took some 11.5 GB when the
    // simulator started: the tables' rows together are bounded.
    let s = Scenario::parse(&with_rows(&[10_000_000]), "t.toml")
        .unwrap_err()
        .to_string();
    assert!(
        s.contains("A.T0") && s.contains("10000000") && s.contains("1500000"),
        "{s}"
    );
    // A scenario that says it may take the memory gets the rows.
    let big = format!("memory_mb = 13000\n{}", with_rows(&[10_000_000]));
    assert!(Scenario::parse(&big, "t.toml").is_ok());
    // The table whose rows cross the bound is the one named.
    let s = Scenario::parse(&with_rows(&[1_000_000, 400_000, 200_000]), "t.toml")
        .unwrap_err()
        .to_string();
    assert!(
        s.contains("table A.T2") && s.contains("200000") && s.contains("1600000"),
        "{s}"
    );
    Scenario::parse(&with_rows(&[1_000_000, 500_000]), "t.toml")
        .expect("rows up to the bound load");
}

#[test]
fn a_fault_is_named_as_the_file_names_it_issue35() {
    let fault = |body: &str| with_rows(&[1]) + &format!("[[faults]]\n{body}\n");
    let e = Scenario::parse(&fault("kind = \"archive_gap\""), "t.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("fault archive_gap: needs at_s or at_scn"), "{e}");
    let e = Scenario::parse(
        &fault("kind = \"archive_gap\"\nat_s = 5\nduration_s = 3"),
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("fault archive_gap: duration_s goes with kind = \"connection_drop\" only"),
        "{e}"
    );
    let outage = fault("kind = \"connection_drop\"\nat_s = 5\nduration_s = 3");
    assert!(Scenario::parse(&outage, "t.toml").is_ok());
}
