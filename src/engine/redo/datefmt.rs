//! Oracle's datetime format models as `datemask` reads them: a mask's text
//! into its elements, and the masks refused before any value is read
//! (elements Oracle refuses together, and masks that leave part of the
//! value to the converting session).

/// The conversion a value came in, which decides what its mask may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Date,
    Timestamp,
    TimestampTz,
}

/// Why a value could not be read by its mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MaskError {
    pub reason: String,
    /// The value and mask are well-formed, but the value they give depends
    /// on the converting session's clock or settings.
    pub ambiguous: bool,
}

pub(super) fn invalid<T>(reason: impl Into<String>) -> Result<T, MaskError> {
    Err(MaskError {
        reason: reason.into(),
        ambiguous: false,
    })
}

pub(super) fn ambiguous<T>(reason: impl Into<String>) -> Result<T, MaskError> {
    Err(MaskError {
        reason: reason.into(),
        ambiguous: true,
    })
}

/// What one mask element stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Year,
    SignedYear,
    RoundYear,
    ShortYear,
    MonthNumber,
    MonthAbbr,
    MonthName,
    Day,
    Hour12,
    Hour24,
    Minute,
    Second,
    /// `FF`, or `FFn` with its digit count.
    Fraction(Option<usize>),
    Meridian {
        dots: bool,
    },
    Radix,
    TzHour,
    TzMinute,
    TzRegion,
    TzAbbr,
}

impl Field {
    /// Fields a value may leave off at its end (Oracle then takes zero).
    pub(super) fn is_time(self) -> bool {
        matches!(
            self,
            Field::Hour12
                | Field::Hour24
                | Field::Minute
                | Field::Second
                | Field::Fraction(_)
                | Field::Meridian { .. }
                | Field::Radix
        )
    }

    pub(super) fn is_numeric(self) -> bool {
        matches!(
            self,
            Field::Year
                | Field::SignedYear
                | Field::RoundYear
                | Field::ShortYear
                | Field::MonthNumber
                | Field::Day
                | Field::Hour12
                | Field::Hour24
                | Field::Minute
                | Field::Second
                | Field::Fraction(_)
                | Field::TzMinute
        )
    }

    /// What the field gives, so no two elements give the same thing.
    fn slot(self) -> &'static str {
        match self {
            Field::Year | Field::SignedYear | Field::RoundYear | Field::ShortYear => "the year",
            Field::MonthNumber | Field::MonthAbbr | Field::MonthName => "the month",
            Field::Day => "the day",
            Field::Hour12 | Field::Hour24 => "the hour",
            Field::Minute => "the minutes",
            Field::Second => "the seconds",
            Field::Fraction(_) => "the fraction",
            Field::Meridian { .. } => "AM or PM",
            Field::Radix => "the radix",
            Field::TzHour | Field::TzRegion => "the zone",
            Field::TzMinute => "the zone's minutes",
            Field::TzAbbr => "the zone's abbreviation",
        }
    }
}

/// Elements by their spelling, longer before any they start with. `None`
/// is an Oracle element cdcctl does not read, named as such.
const ELEMENTS: &[(&str, Option<Field>)] = &[
    ("SYYYY", Some(Field::SignedYear)),
    ("YYYY", Some(Field::Year)),
    ("Y,YYY", None),
    ("YEAR", None),
    ("YYY", None),
    ("YY", Some(Field::ShortYear)),
    ("Y", None),
    ("RRRR", Some(Field::RoundYear)),
    ("RR", Some(Field::ShortYear)),
    ("RM", None),
    ("MONTH", Some(Field::MonthName)),
    ("MON", Some(Field::MonthAbbr)),
    ("MM", Some(Field::MonthNumber)),
    ("MI", Some(Field::Minute)),
    ("DDD", None),
    ("DAY", None),
    ("DD", Some(Field::Day)),
    ("DY", None),
    ("DL", None),
    ("DS", None),
    ("D", None),
    ("HH24", Some(Field::Hour24)),
    ("HH12", Some(Field::Hour12)),
    ("HH", Some(Field::Hour12)),
    ("SSSSS", None),
    ("SS", Some(Field::Second)),
    ("SCC", None),
    ("SP", None),
    ("A.M.", Some(Field::Meridian { dots: true })),
    ("P.M.", Some(Field::Meridian { dots: true })),
    ("AM", Some(Field::Meridian { dots: false })),
    ("PM", Some(Field::Meridian { dots: false })),
    ("A.D.", None),
    ("B.C.", None),
    ("AD", None),
    ("BC", None),
    ("CC", None),
    ("TZH", Some(Field::TzHour)),
    ("TZM", Some(Field::TzMinute)),
    ("TZR", Some(Field::TzRegion)),
    ("TZD", Some(Field::TzAbbr)),
    ("TS", None),
    ("TH", None),
    ("X", Some(Field::Radix)),
    ("IYYY", None),
    ("IYY", None),
    ("IY", None),
    ("IW", None),
    ("I", None),
    ("WW", None),
    ("W", None),
    ("EE", None),
    ("E", None),
    ("J", None),
    ("Q", None),
];

/// One piece of a mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token<'m> {
    /// An element, with its name as Oracle spells it for messages.
    Elem(Field, &'static str),
    Sep(u8),
    Literal(&'m str),
    /// `FX`: exact matching from here, toggled by each occurrence.
    Exact,
    /// `FM`: fill mode (no padding, no leading zeros), toggled likewise.
    Fill,
}

impl Token<'_> {
    pub(super) fn elem(self) -> Option<(Field, &'static str)> {
        match self {
            Token::Elem(f, name) => Some((f, name)),
            _ => None,
        }
    }
}

fn is_separator(b: u8) -> bool {
    matches!(b, b'-' | b'/' | b',' | b'.' | b';' | b':' | b' ')
}

/// The mask's pieces, or the first thing in it that is not an element.
pub(super) fn tokenize(mask: &str) -> Result<Vec<Token<'_>>, MaskError> {
    let b = mask.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let rest = &b[i..];
        let starts = |s: &str| {
            rest.get(..s.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(s.as_bytes()))
        };
        if c == b'"' {
            let Some(len) = rest[1..].iter().position(|&q| q == b'"') else {
                return invalid(format!(
                    "the mask's quoted text at `{}` never ends",
                    &mask[i..]
                ));
            };
            out.push(Token::Literal(&mask[i + 1..i + 1 + len]));
            i += len + 2;
        } else if starts("FX") || starts("FM") {
            out.push(if starts("FX") {
                Token::Exact
            } else {
                Token::Fill
            });
            i += 2;
        } else if starts("FF") {
            let digits = rest.get(2).filter(|d| (b'1'..=b'9').contains(d));
            let n = digits.map(|d| usize::from(d - b'0'));
            out.push(Token::Elem(
                Field::Fraction(n),
                FRACTION_NAMES[n.unwrap_or(0)],
            ));
            i += 2 + usize::from(n.is_some());
        } else if let Some(&(name, field)) = ELEMENTS.iter().find(|(name, _)| starts(name)) {
            let Some(field) = field else {
                return invalid(format!("the mask element `{name}` is not one cdcctl reads"));
            };
            out.push(Token::Elem(field, name));
            i += name.len();
        } else if is_separator(c) {
            out.push(Token::Sep(c));
            i += 1;
        } else {
            let what: String = mask[i..].chars().take(1).collect();
            return invalid(format!(
                "`{what}` in the mask is not a datetime format element"
            ));
        }
    }
    Ok(out)
}

const FRACTION_NAMES: [&str; 10] = [
    "FF", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FF7", "FF8", "FF9",
];

/// Refuses masks Oracle refuses, and masks whose value would come from the
/// converting session rather than from the text.
pub(super) fn check_mask(tokens: &[Token<'_>], target: Target) -> Result<(), MaskError> {
    let elems: Vec<(Field, &str)> = tokens.iter().filter_map(|t| t.elem()).collect();
    for (i, (field, name)) in elems.iter().enumerate() {
        if let Some((_, first)) = elems[..i].iter().find(|(f, _)| f.slot() == field.slot()) {
            return invalid(format!("`{first}` and `{name}` both give {}", field.slot()));
        }
        let zone = matches!(
            field,
            Field::TzHour | Field::TzMinute | Field::TzRegion | Field::TzAbbr
        );
        if zone && target != Target::TimestampTz {
            return invalid(format!(
                "`{name}` gives a time zone, which only TO_TIMESTAMP_TZ holds"
            ));
        }
        if matches!(field, Field::Fraction(_)) && target == Target::Date {
            return invalid(format!(
                "`{name}` gives fractional seconds, which a DATE does not have"
            ));
        }
    }
    let find = |pred: fn(Field) -> bool| elems.iter().find(|(f, _)| pred(*f)).map(|(_, n)| *n);
    let meridian = find(|f| matches!(f, Field::Meridian { .. }));
    match (
        find(|f| f == Field::Hour24),
        find(|f| f == Field::Hour12),
        meridian,
    ) {
        (Some(h), _, Some(m)) => return invalid(format!("`{h}` and `{m}` cannot be combined")),
        (_, Some(h), None) => {
            return ambiguous(format!(
                "`{h}` is a 12-hour clock and the mask has no AM/PM, so the hour is ambiguous"
            ))
        }
        (None, None, Some(m)) => return invalid(format!("`{m}` comes without an hour")),
        _ => {}
    }
    if find(|f| f.slot() == "the year").is_none() {
        return ambiguous("the mask has no year, which Oracle takes from the converting day");
    }
    if find(|f| f.slot() == "the month").is_none() {
        return ambiguous("the mask has no month, which Oracle takes from the converting day");
    }
    let (hour, region) = (find(|f| f == Field::TzHour), find(|f| f == Field::TzRegion));
    if let (Some(h), Some(r)) = (hour, region) {
        return invalid(format!("`{h}` and `{r}` both give the zone"));
    }
    if let (Some(m), None) = (find(|f| f == Field::TzMinute), hour) {
        return invalid(format!("`{m}` comes without `TZH`"));
    }
    if let (Some(d), None) = (find(|f| f == Field::TzAbbr), region) {
        return invalid(format!("`{d}` comes without `TZR`"));
    }
    if target == Target::TimestampTz && hour.is_none() && region.is_none() {
        return ambiguous("the mask has no zone (TZH or TZR), which Oracle takes from the session");
    }
    Ok(())
}
