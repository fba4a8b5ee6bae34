//! Character data LogMiner printed as HEXTORAW: decoded with the column's
//! character set, or kept as hex with a finding once per column.

use super::*;

fn dictionary(charset: &str, nchar: &str) -> crate::engine::charset::CharsetDictionary {
    use crate::engine::charset::{Charset, CharsetDictionary};
    let cs = |n: &str| Charset::from_oracle_name(n).unwrap();
    let mut d = CharsetDictionary::new(cs(charset), cs(nchar));
    d.add_column("APP", "T", "NAME", "VARCHAR2(40)");
    d.add_column("APP", "T", "CODE", "CHAR(4)");
    d.add_column("APP", "T", "NNAME", "NVARCHAR2(40)");
    d.add_column("APP", "T", "TOKEN", "RAW(16)");
    d
}

fn hex_findings(s: &Statement<'_>) -> Vec<(String, String)> {
    s.findings()
        .iter()
        .filter_map(|f| match f {
            Finding::CharacterHex { column, reason, .. } => Some((column.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn character_hex_skips_the_finding_of_a_column_already_reported_and_still_decodes() {
    let sql = r#"insert into "APP"."T"("NAME","CODE","TOKEN") values (HEXTORAW('ff'),HEXTORAW('63616665'),HEXTORAW('0A0B'))"#;
    let mut s = parse(sql).unwrap();
    // NAME's byte is not UTF-8: kept as hex, reported unless given.
    s.decode_character_hex_except(
        Some(&dictionary("AL32UTF8", "AL16UTF16")),
        |schema, table, column| (schema, table, column) == ("APP", "T", "NAME"),
    );
    assert!(hex_findings(&s).is_empty(), "{:?}", s.findings());
    assert_eq!(
        s.after_image().unwrap().get_field("CODE"),
        Some(text("cafe"))
    );

    let mut s = parse(sql).unwrap();
    s.decode_character_hex_except(None, |_, _, column| column == "CODE");
    let columns: Vec<String> = hex_findings(&s).into_iter().map(|(c, _)| c).collect();
    assert_eq!(columns, ["NAME", "TOKEN"]);
}

#[test]
fn hextoraw_character_data_decodes_with_the_column_character_set() {
    // LogMiner prints HEXTORAW for character data it cannot show as text;
    // the bytes are in the database set (VARCHAR2/CHAR) or the national
    // one (NVARCHAR2). RAW stays hex.
    for (charset, name_hex, code_hex) in [
        ("AL32UTF8", "e4b8ade69687", "63616665"),
        ("UTF8", "e4b8ade69687", "63616665"),
        ("ZHS16GBK", "d6d0cec4", "63616665"),
    ] {
        let sql = format!(
            r#"insert into "APP"."T"("NAME","CODE","NNAME","TOKEN") values (HEXTORAW('{name_hex}'),HEXTORAW('{code_hex}'),HEXTORAW('00e90041'),HEXTORAW('0A0B'))"#
        );
        let mut s = parse(&sql).unwrap();
        s.decode_character_hex(Some(&dictionary(charset, "AL16UTF16")));
        assert_eq!(
            s.after_image().unwrap(),
            vec![
                ("NAME".into(), text("中文")),
                ("CODE".into(), text("cafe")),
                ("NNAME".into(), text("éA")),
                ("TOKEN".into(), Field::Binary("0a0b".into())),
            ],
            "{charset}"
        );
        assert!(s.findings().is_empty(), "{charset}: {:?}", s.findings());
    }
    for (charset, hex, want) in [
        ("WE8MSWIN1252", "636166e980", "café€"),
        ("WE8ISO8859P1", "636166e9", "café"),
    ] {
        let sql = format!(
            r#"update "APP"."T" set "NAME" = HEXTORAW('{hex}') where "NAME" = HEXTORAW('{hex}')"#
        );
        let mut s = parse(&sql).unwrap();
        s.decode_character_hex(Some(&dictionary(charset, "AL16UTF16")));
        assert_eq!(s.after_image().unwrap(), vec![("NAME".into(), text(want))]);
        assert_eq!(s.before_image().unwrap(), vec![("NAME".into(), text(want))]);
    }
}

#[test]
fn hextoraw_kept_as_hex_says_why_once_per_column() {
    let sql = r#"update "APP"."T" set "NAME" = HEXTORAW('FF') where "NAME" = HEXTORAW('41') and "TOKEN" = HEXTORAW('0A')"#;
    // No dictionary: RAW cannot be told from character data.
    let mut s = parse(sql).unwrap();
    s.decode_character_hex(None);
    assert_eq!(
        s.after_image().unwrap().get_field("NAME"),
        Some(Field::Binary("ff".into()))
    );
    let found = hex_findings(&s);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, "NAME");
    assert!(found[0].1.contains("no dictionary"), "{found:?}");
    // Bytes not valid in the set stay hex, flagged; the valid ones decode.
    let mut s = parse(sql).unwrap();
    s.decode_character_hex(Some(&dictionary("AL32UTF8", "AL16UTF16")));
    assert_eq!(
        s.after_image().unwrap().get_field("NAME"),
        Some(Field::Binary("ff".into()))
    );
    assert_eq!(s.before_image().unwrap().get_field("NAME"), Some(text("A")));
    assert_eq!(
        hex_findings(&s),
        [("NAME".into(), "the bytes are not valid AL32UTF8".into())]
    );
    // A table the dictionary does not know.
    let mut s = parse(r#"insert into "APP"."OTHER"("C") values (HEXTORAW('41'))"#).unwrap();
    s.decode_character_hex(Some(&dictionary("AL32UTF8", "AL16UTF16")));
    assert!(hex_findings(&s).to_vec()[0]
        .1
        .contains("does not know the table"));
}
