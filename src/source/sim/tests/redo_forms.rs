//! The redo forms of a 21c ZHS16GBK database: fraction digits under an
//! `SS.FF` format, native JSON, character data printed as `HEXTORAW`, and
//! what the truth gives for them.

use super::*;

const FORMS: &str = r#"
[instance]
version = "21c"
cdb = true
pdbs = ["ORCLPDB1"]
supplemental_logging = "all"
characterset = "ZHS16GBK"
nchar_characterset = "AL16UTF16"
[connection]
user = "C##CDCCTL"
[[tables]]
owner = "APP"
name = "EVENTS"
rows = 0
primary_key = ["ID"]
columns = [
  { name = "ID", type = "NUMBER(18)", nullable = false },
  { name = "T0", type = "TIMESTAMP(0)" },
  { name = "T3", type = "TIMESTAMP(3) WITH TIME ZONE" },
  { name = "NAME", type = "VARCHAR2(40)" },
  { name = "LABEL", type = "NVARCHAR2(20)" },
  { name = "DOC", type = "JSON" },
]
[logminer]
nls_timestamp_format = "YYYY-MM-DD HH24:MI:SS.FF"
"#;

fn forms_row(name: &str, label: &str, doc: &str) -> Arc<Vec<Value>> {
    let t = NaiveDate::from_ymd_opt(2020, 2, 1)
        .and_then(|d| d.and_hms_milli_opt(0, 0, 0, 250))
        .unwrap();
    let whole = NaiveDate::from_ymd_opt(2020, 2, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap();
    Arc::new(vec![
        Value::Number("1".into()),
        Value::Timestamp(whole),
        Value::TimestampTz(t, 60),
        Value::Str(name.into()),
        Value::NStr(label.into()),
        Value::Json(doc.into()),
    ])
}

#[test]
fn issue9_insert_under_an_ff_format_prints_empty_fractions_json_locators_and_hextoraw_text() {
    let m = model(FORMS);
    let s = Session::unrestricted(&m);
    let r = forms_row("\u{1}中文", "\u{7}中", r#"{"a":1}"#);
    let ins = s.render(&m, &dml(&m, DmlOp::Insert, None, Some(r), vec![]));
    // TIMESTAMP(0) under `...SS.FF` prints no fraction digit; TIMESTAMP(3)
    // three. Control characters make LogMiner print the bytes: ZHS16GBK for
    // VARCHAR2, AL16UTF16 for NVARCHAR2. A JSON value is a LOB locator.
    assert_eq!(
        ins.sql_redo.as_deref(),
        Some("insert into \"APP\".\"EVENTS\"(\"ID\",\"T0\",\"T3\",\"NAME\",\"LABEL\",\"DOC\") values ('1',TO_TIMESTAMP('2020-02-01 00:00:00.'),TO_TIMESTAMP_TZ('2020-02-01 00:00:00.250 +01:00'),HEXTORAW('01d6d0cec4'),HEXTORAW('00074e2d'),/* JSON */ EMPTY_BLOB());")
    );
}

#[test]
fn a_json_column_set_by_an_update_prints_real_binary_oson_and_stays_out_of_where_issue36() {
    let m = model(FORMS);
    let s = Session::unrestricted(&m);
    let old = forms_row("a", "b", r#"{"a":1}"#);
    let new = forms_row("a", "b", "[]");
    let upd = s.render(&m, &dml(&m, DmlOp::Update, Some(old), Some(new), vec![5]));
    assert_eq!(
        upd.sql_redo.as_deref(),
        Some("update \"APP\".\"EVENTS\" set \"DOC\" = /* JSON */ HEXTORAW('ff4a5a01210600000000020000c000') where \"ID\" = '1' and \"T0\" = TO_TIMESTAMP('2020-02-01 00:00:00.') and \"T3\" = TO_TIMESTAMP_TZ('2020-02-01 00:00:00.250 +01:00') and \"NAME\" = 'a' and \"LABEL\" = 'b' and ROWID = 'AAAR3sAAEAAAACXAAA';")
    );
}

#[test]
fn the_truth_of_a_json_update_is_the_text_the_engine_decodes_from_its_oson_issue36() {
    use crate::engine::event::Field;
    let m = model(FORMS);
    let s = Session::unrestricted(&m);
    let old = forms_row("a", "b", "[]");
    let new = forms_row(
        "a",
        "b",
        r#"{"status":"open","id":7,"tags":["x",true,null,2.5]}"#,
    );
    let upd = s.render(
        &m,
        &dml(&m, DmlOp::Update, Some(old), Some(new.clone()), vec![5]),
    );
    let sql = upd.sql_redo.unwrap_or_default();
    let stmt = crate::engine::redo::parse(&sql).expect("parses");
    let engine = stmt.after_image().and_then(|a| a.get_field("DOC"));
    let Value::Json(doc) = &new[5] else {
        panic!("a JSON value")
    };
    let truth = Field::text(value::oson::stored_text(doc));
    assert_eq!(engine, Some(truth), "{sql}");
    assert!(stmt.findings().is_empty(), "{sql}");
}

#[test]
fn issue9_the_truth_gives_what_the_engine_reads_from_these_forms() {
    use crate::engine::event::Field;
    let m = model(FORMS);
    let r = forms_row("x", "y", "{}");
    let field = |i: usize| r[i].field_in(&m.tables[0].columns[i].ty, &m.nls);
    assert_eq!(field(1), Field::text("2020-02-01T00:00:00.0"));
    assert_eq!(field(2), Field::text("2020-01-31T23:00:00.250Z"));
    assert_eq!(field(5), Field::Unavailable);
    // Under cdcctl's own FF9 format: nine digits.
    let ff9 = model(&FORMS.replace("SS.FF\"", "SS.FF9\""));
    assert_eq!(
        r[1].field_in(&ff9.tables[0].columns[1].ty, &ff9.nls),
        Field::text("2020-02-01T00:00:00.000000000")
    );
}

#[test]
fn issue9_character_data_is_stored_in_the_database_character_set() {
    let cs = model(&FORMS.replace("ZHS16GBK", "WE8MSWIN1252"))
        .nls
        .charsets;
    let ty = value::ColType::Varchar2(40);
    assert_eq!(
        Value::Str("café 中文".into()).stored_in(&ty, &cs),
        Value::Str("café ??".into())
    );
    let char4 = value::ColType::Char(4);
    assert_eq!(
        Value::Str("é  ".into()).stored_in(&char4, &cs),
        Value::Str("é   ".into()),
        "CHAR(4) is 4 bytes of WE8MSWIN1252, where é takes one, not UTF-8's two"
    );
    let gbk = model(FORMS).nls.charsets;
    assert_eq!(
        Value::Str("中 ".into()).stored_in(&char4, &gbk),
        Value::Str("中  ".into())
    );
}

#[test]
fn issue9_scenarios_refuse_json_before_21c_and_formats_the_simulator_does_not_print() {
    let err = Scenario::parse(&FORMS.replace("\"21c\"", "\"19c\""), "t").unwrap_err();
    assert!(
        err.to_string()
            .contains("JSON is a column type from Oracle 21c"),
        "{err}"
    );
    let err = Scenario::parse(&FORMS.replace("SS.FF\"", "SS.FF3\""), "t").unwrap_err();
    assert!(
        err.to_string().contains("logminer.nls_timestamp_format"),
        "{err}"
    );
    let err = Scenario::parse(
        &format!("{ORDERS}\n[logminer]\ntable_alias_pct = 150.0\n"),
        "t",
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("logminer.table_alias_pct"),
        "{err}"
    );
}
