//! Dates and timestamps read by the format mask that comes with them: the
//! examples of Oracle's format-model documentation, refusals that name the
//! element at fault, and values rendered under random masks read back.

use proptest::prelude::*;

use super::super::datemask::{self, Target};
use super::*;

fn err(literal: &str) -> String {
    let sql = format!(r#"insert into "APP"."T"("C") values ({literal});"#);
    match parse(&sql) {
        Ok(s) => panic!("{literal} parsed: {:?}", s.after_image()),
        Err(e) => e.message,
    }
}

#[test]
fn the_issue37_row_form_reads_by_its_mask_issue37() {
    assert_eq!(
        one("TO_DATE('20141110 21:18:04', 'yyyymmdd hh24:mi:ss')"),
        text("2014-11-10T21:18:04")
    );
    assert_eq!(
        one("TO_DATE('2014-11-10T21:18:04', 'YYYY-MM-DD\"T\"HH24:MI:SS')"),
        text("2014-11-10T21:18:04")
    );
}

#[test]
fn documented_to_date_examples_read_issue37() {
    assert_eq!(
        one("TO_DATE('January 15, 1989, 11:00 A.M.', 'Month dd, YYYY, HH:MI A.M.')"),
        text("1989-01-15T11:00:00")
    );
    // Punctuation left out where every digit is written, time fields left
    // off at the end, any punctuation for the mask's, MON for MM.
    for (value, mask, iso) in [
        ("02AUG2006", "DD-MON-YYYY", "2006-08-02T00:00:00"),
        (
            "03-AUG-2006",
            "DD-MON-YYYY HH24:MI:SS",
            "2006-08-03T00:00:00",
        ),
        ("2006!05!12", "YYYY-MM-DD", "2006-05-12T00:00:00"),
        ("15-JAN-1998", "DD-MM-YYYY", "1998-01-15T00:00:00"),
        ("15-January-1998", "DD-MON-YYYY", "1998-01-15T00:00:00"),
        ("20-Dec-81", "DD-Mon-YYYY", "0081-12-20T00:00:00"),
        ("27-OCT-1998", "DD-MON-RR", "1998-10-27T00:00:00"),
        (
            " 2025-02-01 00:00:00",
            "SYYYY-MM-DD HH24:MI:SS",
            "2025-02-01T00:00:00",
        ),
        ("2014/11", "YYYY/MM", "2014-11-01T00:00:00"),
    ] {
        assert_eq!(
            one(&format!("TO_DATE('{value}', '{mask}')")),
            text(iso),
            "{value} {mask}"
        );
    }
}

/// Oracle's table of matches with and without the FX modifier.
#[test]
fn fx_requires_an_exact_match_as_documented_issue37() {
    for (value, mask, reads) in [
        ("15/ JAN /1998", "DD-MON-YYYY", true),
        (" 15! JAN % /1998", "DD-MON-YYYY", false),
        ("15/JAN/1998", "FXDD-MON-YYYY", false),
        ("15-JAN-1998", "FXDD-MON-YYYY", true),
        ("1-JAN-1998", "FXDD-MON-YYYY", false),
        ("01-JAN-1998", "FXDD-MON-YYYY", true),
        ("1-JAN-1998", "FXFMDD-MON-YYYY", true),
    ] {
        let read = datemask::read(value, mask, Target::Date);
        assert_eq!(read.is_ok(), reads, "{value} {mask}: {read:?}");
        if let Ok(iso) = read {
            assert!(iso.starts_with("1998-01-"), "{iso}");
        }
    }
}

#[test]
fn documented_timestamp_examples_read_issue37() {
    for (literal, canonical) in [
        (
            "TO_TIMESTAMP_TZ('1999-12-01 11:00:00 -8:00', 'YYYY-MM-DD HH24:MI:SS TZH:TZM')",
            "1999-12-01T19:00:00Z",
        ),
        (
            "TO_TIMESTAMP_TZ('1999-10-29 01:30:00 US/Pacific PDT', 'YYYY-MM-DD HH24:MI:SS TZR TZD')",
            "1999-10-29T01:30:00 US/Pacific PDT",
        ),
        (
            "TO_TIMESTAMP_TZ('2003/12/13 10:13:18 PM +05:30', 'YYYY/MM/DD HH:MI:SS AM TZR')",
            "2003-12-13T16:43:18Z",
        ),
        (
            "TO_TIMESTAMP('10-Sep-2002 14:10:10.123000', 'DD-Mon-YYYY HH24:MI:SS.FF')",
            "2002-09-10T14:10:10.123000",
        ),
        (
            "TO_TIMESTAMP('2025-03-01 09:00:00,5', 'YYYY-MM-DD HH24:MI:SSXFF')",
            "2025-03-01T09:00:00.5",
        ),
        (
            "TO_TIMESTAMP('12-mar-2025 12.00.00.000000 am', 'dd-mon-yyyy hh.mi.ssxff6 am')",
            "2025-03-12T00:00:00.000000",
        ),
        (
            "TO_TIMESTAMP('20200201 00:00:00.', 'YYYYMMDD HH24:MI:SS.FF')",
            "2020-02-01T00:00:00.0",
        ),
    ] {
        assert_eq!(one(literal), text(canonical), "{literal}");
    }
}

#[test]
fn two_digit_years_are_refused_as_ambiguous_naming_the_element_issue37() {
    for (literal, element, nls) in [
        (
            "TO_DATE('27-OCT-98', 'DD-MON-RR')",
            "`RR`",
            "NLS_DATE_FORMAT",
        ),
        (
            "TO_DATE('27-OCT-98', 'DD-MON-YY')",
            "`YY`",
            "NLS_DATE_FORMAT",
        ),
        (
            "TO_DATE('20-Dec-81', 'DD-Mon-RRRR')",
            "`RRRR`",
            "NLS_DATE_FORMAT",
        ),
        (
            "TO_TIMESTAMP('10-Sep-02 14:10:10.123000', 'DD-Mon-RR HH24:MI:SS.FF')",
            "`RR`",
            "NLS_TIMESTAMP_FORMAT",
        ),
        // Four digits run into the next number: RR took two of them.
        (
            "TO_DATE('11101411', 'MMDDRRHH24')",
            "`RR`",
            "NLS_DATE_FORMAT",
        ),
        (
            "TO_DATE('1998-01-15', 'FXRR-MM-DD')",
            "`RR`",
            "NLS_DATE_FORMAT",
        ),
    ] {
        let message = err(literal);
        for part in [element, "ambiguous", nls, "in the mining session"] {
            assert!(message.contains(part), "{part} in {message}");
        }
    }
}

#[test]
fn what_only_the_converting_session_knew_is_refused_as_ambiguous_issue37() {
    for (literal, element) in [
        (
            "TO_TIMESTAMP_TZ('1999-12-01 11:00:00 -8:00', 'YYYY-MM-DD HH:MI:SS TZH:TZM')",
            "`HH`",
        ),
        ("TO_DATE('11-10 09:00', 'MM-DD HH24:MI')", "no year"),
        ("TO_DATE('2014 10', 'YYYY DD')", "no month"),
        (
            "TO_TIMESTAMP_TZ('2014-11-10 21:18:04', 'YYYY-MM-DD HH24:MI:SS')",
            "no zone",
        ),
        ("TO_DATE('2014-11-10 09', 'YYYY-MM-DD HH12 AM')", "AM/PM"),
    ] {
        let message = err(literal);
        assert!(message.contains(element), "{element} in {message}");
        assert!(message.contains("in the mining session"), "{message}");
    }
}

#[test]
fn invalid_values_and_masks_are_errors_naming_the_element_issue37() {
    for (literal, part) in [
        (
            "TO_DATE('20140230', 'YYYYMMDD')",
            "`DD` is 30, a day February 2014",
        ),
        ("TO_DATE('19000229', 'YYYYMMDD')", "February 1900"),
        ("TO_DATE('00000101', 'YYYYMMDD')", "no year 0"),
        ("TO_DATE('20141310', 'YYYYMMDD')", "`MM` is 13"),
        (
            "TO_DATE('20141110 24:00:00', 'YYYYMMDD HH24:MI:SS')",
            "`HH24` is 24",
        ),
        (
            "TO_DATE('20141110 21:60', 'YYYYMMDD HH24:MI')",
            "`MI` is 60",
        ),
        (
            "TO_DATE('2014-11-10', 'YYYYMMDD')",
            "expected digits for `MM`",
        ),
        (
            "TO_DATE('20141110 21', 'YYYYMMDD')",
            "goes on after the mask ends",
        ),
        ("TO_DATE('10-NOVEMBRE-2014', 'DD-MON-YYYY')", "`MON`"),
        (
            "TO_DATE('2014-11', 'YYYY-MM-DD')",
            "ends where the mask has `DD`",
        ),
        ("TO_DATE('2014-11-10 1.5', 'YYYY-MM-DD SS.FF')", "`FF`"),
        ("TO_TIMESTAMP('2014-11-10 +08', 'YYYY-MM-DD TZH')", "`TZH`"),
        ("TO_DATE('2014-11-10 314', 'YYYY-MM-DD DDD')", "`DDD`"),
        ("TO_DATE('2456970', 'J')", "`J`"),
        (
            "TO_DATE('2014 2014-11', 'YYYY RRRR-MM')",
            "`YYYY` and `RRRR`",
        ),
        (
            "TO_DATE('2014-11-10 21 PM', 'YYYY-MM-DD HH24 PM')",
            "`HH24` and `PM`",
        ),
        (
            "TO_TIMESTAMP('20141110 1.1234', 'YYYYMMDD SS.FF3')",
            "`FF3`",
        ),
        ("TO_DATE('2014#11', 'YYYY#MM')", "`#`"),
    ] {
        let message = err(literal);
        assert!(message.contains(part), "{part} in {message}");
        assert!(!message.contains("mining session"), "{message}");
    }
}

#[test]
fn years_one_to_9999_read_issue37() {
    assert_eq!(
        one("TO_DATE('00010101 000000', 'YYYYMMDD HH24MISS')"),
        text("0001-01-01T00:00:00")
    );
    assert_eq!(
        one("TO_TIMESTAMP('31.12.9999 23:59:59.999999999', 'DD.MM.YYYY HH24:MI:SS.FF9')"),
        text("9999-12-31T23:59:59.999999999")
    );
    assert_eq!(
        one("TO_DATE('29/02/2024', 'DD/MM/YYYY')"),
        text("2024-02-29T00:00:00")
    );
}

#[test]
fn the_error_names_the_column_and_the_literal_with_its_mask_issue37() {
    let sql = r#"insert into "A"."T"("ID","D") values ('1',TO_DATE('10-NOV-14', 'DD-MON-RR'))"#;
    let e = parse(sql).unwrap_err();
    assert!(e.message.contains("\"D\""), "{}", e.message);
    assert!(
        e.message.contains("TO_DATE('10-NOV-14', 'DD-MON-RR')"),
        "{}",
        e.message
    );
    assert_eq!(e.position, sql.find("TO_DATE").unwrap());
}

/// A moment and the mask it is printed under, as TO_CHAR prints it.
#[derive(Debug, Clone)]
struct Rendering {
    target: Target,
    value: String,
    mask: String,
    /// The same moment as cdcctl's own session prints it.
    iso_literal: String,
}

const NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

#[derive(Debug, Clone)]
struct Moment {
    date: (u32, u32, u32),
    time: (u32, u32, u32),
    fraction: String,
}

fn moment() -> impl Strategy<Value = Moment> {
    (
        1u32..=9999,
        1u32..=12,
        1u32..=31,
        0u32..24,
        0u32..60,
        0u32..60,
        "[0-9]{0,9}",
    )
        .prop_map(|(y, m, d, h, mi, s, fraction)| {
            let last = match m {
                2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            Moment {
                date: (y, m, d.min(last)),
                time: (h, mi, s),
                fraction,
            }
        })
}

/// How the mask is spelled: element choices, separators and modifiers.
#[derive(Debug, Clone)]
struct Style {
    target: Target,
    order: usize,
    year: usize,
    month: usize,
    twelve: Option<bool>,
    date_sep: &'static str,
    time_sep: &'static str,
    between: &'static str,
    fraction: Option<(bool, Option<usize>)>,
    zone: usize,
    fill: bool,
    exact: bool,
    lower: bool,
}

fn style() -> impl Strategy<Value = Style> {
    let seps = prop::sample::select(vec!["-", "/", ".", ",", ";", ":", " ", "", "/ "]);
    let time_seps = prop::sample::select(vec![":", ".", "", " "]);
    let between = prop::sample::select(vec![" ", "\"T\"", ":", "-", ""]);
    let target = prop::sample::select(vec![Target::Date, Target::Timestamp, Target::TimestampTz]);
    (
        (target, 0usize..3, 0usize..3, 0usize..3),
        (prop::option::of(any::<bool>()), seps, time_seps, between),
        (
            prop::option::of((any::<bool>(), prop::option::of(1usize..=9))),
            0usize..3,
        ),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(
                (target, order, year, month),
                (twelve, date_sep, time_sep, between),
                (fraction, zone),
                (fill, exact, lower),
            )| {
                // Without separators only full-width numbers tell where one ends.
                let fill =
                    fill && !date_sep.is_empty() && !time_sep.is_empty() && !between.is_empty();
                Style {
                    target,
                    order,
                    year,
                    month,
                    twelve,
                    date_sep,
                    time_sep,
                    between,
                    fraction: if target == Target::Date {
                        None
                    } else {
                        fraction
                    },
                    zone,
                    fill,
                    exact,
                    lower,
                }
            },
        )
}

/// `moment` printed under the mask `style` spells, as TO_CHAR would.
fn render(m: &Moment, st: &Style) -> Rendering {
    let num = |n: u32, width: usize| {
        if st.fill {
            n.to_string()
        } else {
            format!("{n:0width$}")
        }
    };
    let (y, mo, d) = m.date;
    let (h, mi, s) = m.time;
    // FM prints RRRR's small years in two digits, which Oracle itself
    // reads back by the RR rule.
    let (year_mask, year_text) = match st.year {
        1 if !st.fill => ("RRRR", num(y, 4)),
        0 | 1 => ("YYYY", num(y, 4)),
        _ => ("SYYYY", format!(" {}", num(y, 4))),
    };
    let name = NAMES[mo as usize - 1];
    let (month_mask, month_text) = match st.month {
        0 => ("MM", num(mo, 2)),
        1 => ("Mon", name[..3].to_string()),
        _ if st.fill => ("Month", name.to_string()),
        _ => ("Month", format!("{name:<9}")),
    };
    let mut parts = [
        (year_mask, year_text),
        (month_mask, month_text),
        ("DD", num(d, 2)),
    ];
    parts.rotate_left(st.order);
    let mut mask = String::new();
    let mut value = String::new();
    if st.exact {
        mask.push_str("FX");
    }
    if st.fill {
        mask.push_str("FM");
    }
    for (i, (element, text)) in parts.iter().enumerate() {
        if i > 0 {
            mask.push_str(st.date_sep);
            value.push_str(st.date_sep);
        }
        mask.push_str(element);
        value.push_str(text);
    }
    mask.push_str(st.between);
    value.push_str(&st.between.replace('"', ""));
    let (hour_mask, hour) = match st.twelve {
        None => ("HH24", h),
        Some(_) => ("HH12", if h % 12 == 0 { 12 } else { h % 12 }),
    };
    for (i, (element, n)) in [(hour_mask, hour), ("MI", mi), ("SS", s)]
        .iter()
        .enumerate()
    {
        if i > 0 {
            mask.push_str(st.time_sep);
            value.push_str(st.time_sep);
        }
        mask.push_str(element);
        value.push_str(&num(*n, 2));
    }
    let fraction = render_fraction(m, st, &mut mask, &mut value);
    if let Some(dots) = st.twelve {
        let (am, pm) = if dots { ("A.M.", "P.M.") } else { ("AM", "PM") };
        mask.push(' ');
        mask.push_str(am);
        value.push(' ');
        value.push_str(if h >= 12 { pm } else { am });
    }
    let zone = render_zone(st, &mut mask, &mut value);
    let iso = format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}");
    let iso_literal = match st.target {
        Target::Date => format!("TO_DATE('{iso}', 'YYYY-MM-DD HH24:MI:SS')"),
        Target::Timestamp => format!("TO_TIMESTAMP('{iso}{fraction}')"),
        Target::TimestampTz => format!("TO_TIMESTAMP_TZ('{iso}{fraction} {zone}')"),
    };
    Rendering {
        target: st.target,
        value,
        mask: if st.lower { mask.to_lowercase() } else { mask },
        iso_literal,
    }
}

/// The fraction's mask and text; what follows the seconds in ISO form.
fn render_fraction(m: &Moment, st: &Style, mask: &mut String, value: &mut String) -> String {
    let Some((radix_x, digits)) = st.fraction else {
        return String::new();
    };
    mask.push_str(if radix_x { "X" } else { "." });
    value.push('.');
    let text = match digits {
        None => {
            mask.push_str("FF");
            m.fraction.clone()
        }
        Some(n) => {
            mask.push_str(&format!("FF{n}"));
            format!("{:0<n$}", m.fraction)[..n].to_string()
        }
    };
    value.push_str(&text);
    format!(".{text}")
}

/// The zone's mask and text for TO_TIMESTAMP_TZ; the zone in ISO form.
fn render_zone(st: &Style, mask: &mut String, value: &mut String) -> String {
    if st.target != Target::TimestampTz {
        return String::new();
    }
    let (m, v) = match st.zone {
        0 => (" TZH:TZM", "-05:30"),
        1 => (" TZR", "Europe/Paris"),
        _ => (" TZR TZD", "US/Pacific PDT"),
    };
    mask.push_str(m);
    value.push(' ');
    value.push_str(v);
    v.to_string()
}

proptest! {
    /// Any moment of years 1–9999 printed under a mask of the read elements
    /// (any order of the date, separators or none, names or numbers, FM,
    /// FX, either case) reads back to the value its ISO form gives.
    #[test]
    fn values_rendered_under_random_masks_read_back_issue37(m in moment(), st in style()) {
        let r = render(&m, &st);
        let func = match r.target {
            Target::Date => "TO_DATE",
            Target::Timestamp => "TO_TIMESTAMP",
            Target::TimestampTz => "TO_TIMESTAMP_TZ",
        };
        let masked = format!("{func}('{}', '{}')", r.value, r.mask);
        let sql = format!(r#"insert into "APP"."T"("C") values ({masked});"#);
        let read = parse(&sql).map_err(|e| TestCaseError::fail(format!("{masked}: {}", e.message)))?;
        let read = read.after_image().map(|i| i.to_vec()[0].1.clone());
        prop_assert_eq!(read, Some(one(&r.iso_literal)), "{}", masked);
    }
}

proptest! {
    /// Whatever the value and the mask hold, reading gives a value or an
    /// error, never a panic.
    #[test]
    fn any_value_under_any_mask_reads_or_fails_without_panicking_issue37(
        value in "[0-9A-Za-z .:/,;+\"年-]{0,30}",
        mask in "(YYYY|RR|MON|MONTH|MM|DD|HH|HH24|AM|A\\.M\\.|MI|SS|X|FF[0-9]?|TZH|TZM|TZR|TZD|FX|FM|\"[a-z年]*\"|[-/,.;: ]|[a-z年#]){0,12}",
        target in prop::sample::select(vec![Target::Date, Target::Timestamp, Target::TimestampTz]),
    ) {
        let _ = datemask::read(&value, &mask, target);
    }
}
