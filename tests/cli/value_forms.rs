//! README's table of value forms, pinned: for every column type the
//! simulator has, what LogMiner prints for a sample value, what the parser
//! reads from it, and the JSON value the envelope carries.

use chrono::{NaiveDate, NaiveDateTime};

use crate::run::cdcctl;
use cdcctl::engine::event::{
    column_schema, ChangeEvent, ColumnType, Field, Op, SnapshotMark, SourcePosition, ValueForms,
};
use cdcctl::engine::redo::parse;
use cdcctl::source::sim::value::{number_text, ColType, Nls, Value};

fn at(h: u32, nanos: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2025, 3, 1)
        .and_then(|d| d.and_hms_nano_opt(h, 0, 0, nanos))
        .expect("a valid sample time")
}

/// One sample value per column type, as a scenario names the type.
fn samples() -> Vec<(&'static str, Value)> {
    vec![
        ("NUMBER(10,2)", Value::Number(number_text(123_450, 2))),
        ("NUMBER", Value::Number("-7.25".into())),
        ("VARCHAR2(40)", Value::Str("it's".into())),
        ("CHAR(4)", Value::Str("AB  ".into())),
        ("NVARCHAR2(20)", Value::NStr("中文".into())),
        ("DATE", Value::Date(at(9, 0))),
        ("TIMESTAMP(6)", Value::Timestamp(at(9, 123_456_000))),
        (
            "TIMESTAMP(6) WITH TIME ZONE",
            Value::TimestampTz(at(9, 123_456_000), 8 * 60),
        ),
        ("RAW(16)", Value::Raw(vec![0x0a, 0x0b, 0x0c])),
        ("CLOB", Value::Clob("long text".into())),
        ("BLOB", Value::Blob(vec![1, 2, 3])),
        ("XMLTYPE", Value::Xml("<doc/>".into())),
        ("INTERVAL YEAR TO MONTH", Value::IntervalYm("+01-02".into())),
        (
            "INTERVAL DAY TO SECOND",
            Value::IntervalDs("+01 02:03:04.123456".into()),
        ),
        ("JSON", Value::Json(r#"{"k":1}"#.into())),
    ]
}

/// Which kind of column type each is: adding a type to the simulator
/// breaks this match, and so asks for a row in the table.
fn kind(t: &ColType) -> usize {
    match t {
        ColType::Number { .. } => 0,
        ColType::Varchar2(_) => 1,
        ColType::NVarchar2(_) => 2,
        ColType::Char(_) => 3,
        ColType::Date => 4,
        ColType::Timestamp(_) => 5,
        ColType::TimestampTz(_) => 6,
        ColType::Raw(_) => 7,
        ColType::Clob => 8,
        ColType::Blob => 9,
        ColType::XmlType => 10,
        ColType::IntervalYm => 11,
        ColType::IntervalDs => 12,
        ColType::Json => 13,
        // DM8's types print DM8's forms (dm8-contract.md), pinned by the
        // simulator's DM8 tests; this table is Oracle's.
        ColType::Int | ColType::BigInt | ColType::Double | ColType::DateOnly | ColType::Time => {
            unreachable!("{t:?} is a DM8 type, with no row in Oracle's table")
        }
    }
}
const KINDS: usize = 14;

/// The value in the envelope, as JSON text, with the default forms.
fn json_of(field: Field) -> String {
    let event = ChangeEvent {
        op: Op::Create,
        before: None,
        after: Some(vec![("C".to_string(), field)].into()),
        source: SourcePosition::default(),
        snapshot: SnapshotMark::Stream,
        partial: false,
        commit_ts_ms: 0,
        index: 0,
        table_order: 1,
    };
    let forms = ValueForms::default();
    let v: serde_json::Value =
        serde_json::from_str(&event.to_json_line_with(forms)).expect("the envelope is JSON");
    v["after"]["C"].to_string()
}

/// `| type | LogMiner prints | JSON value |`, the first three cells of each
/// row of the table between README's value-forms markers.
fn readme_rows() -> Vec<[String; 3]> {
    readme_cells()
        .into_iter()
        .map(|c| [c[0].clone(), c[1].clone(), c[2].clone()])
        .collect()
}

/// Every cell of each row of the table between README's value-forms
/// markers, without the code quotes around a whole cell.
fn readme_cells() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = readme
        .find("<!-- value-forms:start -->")
        .expect("README has the value-forms table");
    let end = readme
        .find("<!-- value-forms:end -->")
        .expect("the value-forms table ends");
    readme[start..end]
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().trim_matches('`').replace("\\|", "|"))
                .collect()
        })
        .collect()
}

#[test]
fn issue16_readme_value_forms_table_is_what_the_simulator_and_parser_give() {
    let mut seen = [false; KINDS];
    let mut want = Vec::new();
    for (ty, value) in samples() {
        let t = ColType::parse(ty).expect("a type the simulator knows");
        seen[kind(&t)] = true;
        // What the redo carries: LOBs and XMLType come in their own rows
        // (the statement holds EMPTY_CLOB()/EMPTY_BLOB() or nothing), and
        // without --lob capture the envelope holds the placeholder.
        let (printed, field) = match &value {
            Value::Clob(_) => (value.sql_literal(), Field::Unavailable),
            Value::Blob(_) => (value.sql_literal(), Field::UnavailableBinary),
            Value::Xml(_) => (
                "XML DOC BEGIN/WRITE/END rows".to_string(),
                Field::Unavailable,
            ),
            // An insert shows the LOB-stored JSON's empty locator.
            Value::Json(_) => (
                value.literal_in(&t, &Nls::default(), true),
                Field::Unavailable,
            ),
            _ => (value.sql_literal(), value.field()),
        };
        if !matches!(t, ColType::XmlType) {
            let sql = format!(r#"insert into "APP"."T"("C") values ({printed});"#);
            let st = parse(&sql).unwrap_or_else(|e| panic!("{ty}: {e}: {sql}"));
            assert_eq!(
                st.after_image(),
                Some(vec![("C".to_string(), field.clone())].into()),
                "{ty}: the parser reads {printed} as the simulator's truth has it"
            );
        }
        want.push([ty.to_string(), printed, json_of(field)]);
    }
    assert!(
        seen.iter().all(|s| *s),
        "a column type has no sample: {seen:?}"
    );
    let got = readme_rows();
    let show = |rows: &[[String; 3]]| {
        rows.iter()
            .map(|r| {
                format!(
                    "| `{}` | `{}` | `{}` |",
                    r[0],
                    r[1].replace('|', "\\|"),
                    r[2]
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        show(&got),
        show(&want),
        "README's value-forms table (first three columns) must be:\n{}",
        show(&want)
    );
}

/// The table's Kafka Connect schema column is what `--envelope
/// connect-json` declares for each type in the default forms: the schema
/// type first, then its logical name where it has one.
#[test]
fn issue32_readme_kafka_connect_schema_column_is_what_connect_json_declares() {
    let cells = readme_cells();
    assert_eq!(cells.len(), samples().len(), "a row per sample type");
    for row in cells {
        let column = ColumnType {
            name: "C".into(),
            data_type: row[0].clone(),
            nullable: true,
        };
        let schema = column_schema(&column, ValueForms::default());
        let ty = schema["type"]
            .as_str()
            .expect("a schema type")
            .to_uppercase();
        let cell = &row[4];
        assert!(
            cell.starts_with(&ty),
            "{}: README says {cell}, the schema is {schema}",
            row[0]
        );
        if let Some(name) = schema["name"].as_str() {
            assert!(
                cell.contains(name),
                "{}: README says {cell}, the schema is {schema}",
                row[0]
            );
        }
    }
}

#[test]
fn issue16_decimal_double_and_connect_time_write_numbers_in_run_and_truth_alike() {
    let dir = tempfile::tempdir().expect("tempdir");
    let forms = [
        "--decimal-handling",
        "double",
        "--time-precision",
        "connect",
    ];
    let mut run = vec![
        "--source",
        "sim:demo?clock=virtual",
        "run",
        "APP.ORDERS",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--from-scn",
        "13000000",
        "--until-scn",
        "13001000",
    ];
    run.extend(forms);
    let out = cdcctl(dir.path(), &run);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut truth = vec![
        "sim",
        "truth",
        "--scenario",
        "demo",
        "--until-scn",
        "13001000",
    ];
    truth.extend(forms);
    let want = cdcctl(dir.path(), &truth);
    assert!(want.status.success());
    let parse = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| {
                crate::common::without_unavailable(serde_json::from_str(l).expect("JSON line"))
            })
            .collect()
    };
    let got = parse(&std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output"));
    let want: Vec<_> = parse(&String::from_utf8_lossy(&want.stdout))
        .into_iter()
        .filter(|e| e["source"]["table"] == "ORDERS")
        .collect();
    assert!(got.len() > 50, "{}", got.len());
    assert_eq!(got, want);
    let images = got.iter().filter_map(|e| e["after"].as_object());
    let (mut numbers, mut dates) = (0, 0);
    for after in images {
        if !after["AMOUNT"].is_null() {
            assert!(after["AMOUNT"].is_number(), "{after:?}");
            numbers += 1;
        }
        if !after["ORDER_DATE"].is_null() {
            assert!(after["ORDER_DATE"].is_i64(), "{after:?}");
            dates += 1;
        }
        // TIMESTAMP WITH TIME ZONE stays text in UTC.
        if let Some(t) = after["UPDATED_AT"].as_str() {
            assert!(t.ends_with('Z'), "{after:?}");
        }
    }
    assert!(numbers > 0 && dates > 0, "{numbers} numbers, {dates} dates");
}
