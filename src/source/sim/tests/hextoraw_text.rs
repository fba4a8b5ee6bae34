//! Character data rendered as LogMiner prints it when it cannot show it
//! as text, read back by the engine's parser and character-set decoder.

use proptest::prelude::*;

use super::super::charset::Charsets;
use super::super::value::{ColType, Fraction, Nls, Value};
use crate::engine::charset::Charset;
use crate::engine::redo::parse;

const SETS: [&str; 7] = [
    "AL32UTF8",
    "UTF8",
    "AL16UTF16",
    "ZHS16GBK",
    "WE8MSWIN1252",
    "WE8ISO8859P1",
    "US7ASCII",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn issue9_non_displayable_text_round_trips_through_hextoraw_in_every_character_set(
        // A control character other than tab, line feed and carriage
        // return: what LogMiner cannot show as text.
        text in "(?s)[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]{1,3}.{0,30}",
        set in prop::sample::select(&SETS[..]),
        national in any::<bool>(),
    ) {
        // GBK private-use characters (U+E78D..U+E796, U+E7C7, U+E81E..)
        // encode to codes that GB18030, which the engine decodes ZHS16GBK
        // with, reads as standard characters (U+FE10.., U+1E3F..); Oracle's
        // own table may keep them private. A known divergence, not tested.
        prop_assume!(
            !(set == "ZHS16GBK" && text.chars().any(|c| ('\u{E000}'..='\u{F8FF}').contains(&c)))
        );
        let cs = Charset::from_oracle_name(set).unwrap();
        let nls = Nls {
            fraction: Fraction::Ff,
            charsets: Charsets { database: cs, national: cs },
        };
        let (ty, value) = if national {
            (ColType::NVarchar2(100), Value::NStr(text))
        } else {
            (ColType::Varchar2(400), Value::Str(text))
        };
        let stored = value.stored_in(&ty, &nls.charsets);
        let lit = stored.literal_in(&ty, &nls, true);
        prop_assert!(lit.starts_with("HEXTORAW('"), "{}", lit);
        let sql = format!(r#"insert into "S"."T"("C") values ({lit});"#);
        let mut st = parse(&sql).unwrap();
        let mut dict = crate::engine::charset::CharsetDictionary::new(cs, cs);
        dict.add_column("S", "T", "C", &ty.data_type());
        st.decode_character_hex(Some(&dict));
        prop_assert_eq!(st.findings().len(), 0, "{}", sql);
        prop_assert_eq!(
            st.after_image(),
            Some(vec![("C".to_string(), stored.field())].into())
        );
    }
}
