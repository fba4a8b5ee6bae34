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
fn bad_version_lists_the_versions() {
    let text = "[instance]\nversion = \"10g\"\n[connection]\nuser = \"U\"\n";
    let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
    assert!(
        s.contains("line 2") && s.contains("19c") && s.contains("23ai"),
        "{s}"
    );
}
