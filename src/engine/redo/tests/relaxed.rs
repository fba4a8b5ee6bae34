//! Relaxed quotes: values holding a quote LogMiner did not double,
//! recovered from the statement's shape or refused, never truncated.

use super::*;

fn recovered_columns(s: &Statement<'_>) -> Vec<String> {
    s.findings()
        .iter()
        .filter_map(|f| match f {
            Finding::UnescapedQuote { column, .. } => Some(column.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn unescaped_quote_is_an_error_pointing_at_the_quote_with_a_caret() {
    // Some releases print O'Brien inside a literal without doubling the quote.
    let sql = r#"insert into "APP"."T"("ID","NAME") values ('1','O'Brien');"#;
    let err = parse(sql).unwrap_err();
    let quote = sql.find("O'B").unwrap() + 1;
    assert_eq!(err.position, quote);
    assert!(err.message.contains("unescaped quote"), "{}", err.message);
    assert!(
        err.message.contains(&format!("byte {quote}")),
        "{}",
        err.message
    );
    assert!(err.message.contains("--relaxed-quotes"), "{}", err.message);
    // The excerpt line and, under it, a caret at the quote.
    let lines: Vec<&str> = err.message.lines().collect();
    let excerpt = lines[lines.len() - 2];
    let caret = lines[lines.len() - 1];
    assert_eq!(caret.trim(), "^");
    let col = caret.chars().count() - 1;
    assert_eq!(excerpt.chars().nth(col), Some('\''));
    assert_eq!(excerpt.chars().nth(col + 1), Some('B'));
    // Without --relaxed-quotes the options change nothing.
    assert_eq!(parse_with(sql, ParseOptions::default()).unwrap_err(), err);
}

#[test]
fn relaxed_quotes_recover_insert_values_from_the_column_count() {
    let sql = r#"insert into "APP"."T"("ID","NAME","NOTE") values ('1','O'Brien','it's, (ok)');"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(
        s.after_image().unwrap(),
        vec![
            ("ID".into(), text("1")),
            ("NAME".into(), text("O'Brien")),
            ("NOTE".into(), text("it's, (ok)")),
        ]
    );
    assert_eq!(recovered_columns(&s), ["NAME", "NOTE"]);
    // A value whose text ends right before `,` is resolved by the count:
    // two columns leave one reading only.
    let s = parse_with(
        r#"insert into "A"."T"("A","B") values ('say 'hi', then','x')"#,
        RELAXED,
    )
    .unwrap();
    assert_eq!(
        s.after_image().unwrap().get_field("A"),
        Some(text("say 'hi', then"))
    );
    assert_eq!(recovered_columns(&s), ["A"]);
}

#[test]
fn relaxed_quotes_recover_set_and_where_values_and_keep_the_rest_exact() {
    let sql = r#"update "APP"."T" a set a."NAME" = 'O'Brien' where a."ID" = '1' and a."NAME" = 'd'Arcy' and a."NOTE" = 'ok''s' and ROWID = 'AAAR3s';"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(
        s.before_image().unwrap(),
        vec![
            ("ID".into(), text("1")),
            ("NAME".into(), text("d'Arcy")),
            ("NOTE".into(), text("ok's")),
        ]
    );
    assert_eq!(
        s.after_image().unwrap().get_field("NAME"),
        Some(text("O'Brien"))
    );
    assert_eq!(s.row_id(), Some("AAAR3s"));
    assert_eq!(recovered_columns(&s), ["NAME", "NAME"]);
    let s = parse_with(
        r#"delete from "A"."T" where "K" = 'x' and "V" = 'rock 'n' roll'"#,
        RELAXED,
    )
    .unwrap();
    assert_eq!(
        s.before_image().unwrap().get_field("V"),
        Some(text("rock 'n' roll"))
    );
}

#[test]
fn relaxed_quotes_refuse_a_statement_with_two_readings_never_truncating() {
    // A SET value never runs past the start of the next term.
    let sql = r#"update "A"."T" set "C" = 'x'y', "D" = 'z' where "K" = '1'"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(s.assigned()[0], ("C", Value::Text("x'y".into())));
    assert_eq!(s.assigned()[1], ("D", Value::Text("z".into())));
    let sql = r#"insert into "A"."T"("A","B","C") values ('p', 'q', 'r's')"#;
    let s = parse_with(sql, RELAXED).unwrap();
    assert_eq!(s.after_image().unwrap().get_field("C"), Some(text("r's")));
    let sql = r#"insert into "A"."T"("A","B") values ('p', 'q', 'r', 's')"#;
    let err = parse_with(sql, RELAXED).unwrap_err();
    assert!(err.message.contains("more than one way"), "{}", err.message);
    let sql = r#"insert into "A"."T"("A","B") values ('p'q')"#;
    let err = parse_with(sql, RELAXED).unwrap_err();
    assert!(err.message.contains("--relaxed-quotes:"), "{}", err.message);
    assert!(err.message.contains("unescaped quote"), "{}", err.message);
}

#[test]
fn relaxed_quotes_never_recover_a_rowid_holding_quotes() {
    // Found by fuzzing: a ROWID literal with stray quotes was read as a
    // recovered value with no column to name in a finding.
    let sql = r#"update "A"."T" a set a."N" = 'x' where a."K" = '1' and a.ROWID = 'AAAR3sAAEAAAATO_TIMESTAMP('2025-03-01 09:00:00.123456789')CXAAA';"#;
    assert!(parse(sql).is_err());
    assert!(parse_with(sql, RELAXED).is_err());
}

#[test]
fn issue9_relaxed_quotes_take_a_rowid_only_as_a_string_literal_like_the_strict_parser() {
    // Found by fuzzing: `ROWID = HEXTORAW('...')` failed the strict parser
    // and the relaxed one took it, with no quote recovered to report.
    for sql in [
        r#"update "S"."T" a set a."C" = HEXTORAW('01') where ROWID = HEXTORAW('d6d0') and a."R" = HEXTORAW('0a0b') and ROWID = 'AAASEQAAMAAAACKAAK';"#,
        r#"update "S"."T" set "C" = '1' where ROWID = HEXTORAW('00') and "K" = '2';"#,
        r#"delete from "S"."T" where "K" = '2' and ROWID = NULL;"#,
        r#"delete from "S"."T" where "K" = '2' and ROWID = 7;"#,
    ] {
        let strict = parse(sql).unwrap_err();
        let relaxed = parse_with(sql, RELAXED).unwrap_err();
        assert_eq!(relaxed.position, strict.position, "{sql}");
        assert!(
            strict.message.contains("expected a string literal"),
            "{strict}"
        );
    }
    let ok = r#"update "S"."T" set "C" = 'it's' where "K" = '2' and ROWID = 'AAASEQAAMAAAACKAAK';"#;
    assert_eq!(
        parse_with(ok, RELAXED).unwrap().row_id(),
        Some("AAASEQAAMAAAACKAAK")
    );
}
