//! The SQL_REDO parser pinned by behaviour, one file per group; the
//! statements and helpers they share are here.

use super::*;
use crate::engine::event::Field;

fn text(s: &str) -> Field {
    Field::text(s)
}

fn after(sql: &str) -> Image {
    parse(sql).unwrap().after_image().unwrap()
}

/// The canonical value of a one-column insert.
fn one(literal: &str) -> Field {
    let sql = format!(r#"insert into "APP"."T"("C") values ({literal});"#);
    let image = after(&sql);
    assert_eq!(image.len(), 1);
    image.to_vec()[0].1.clone()
}

const INSERT: &str = r#"insert into "APP"."ORDERS"("ORDER_ID","STATUS","AMOUNT","ORDER_DATE","NOTE") values ('1001','NEW','99.5',TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS'),NULL);"#;
const UPDATE: &str = r#"update "APP"."ORDERS" set "STATUS" = 'PAID', "NOTE" = 'O''Brien' where "ORDER_ID" = '1001' and "STATUS" = 'NEW' and "AMOUNT" = '99.5' and "ORDER_DATE" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and "NOTE" IS NULL;"#;
const DELETE: &str = r#"delete from "APP"."ORDERS" where "ORDER_ID" = '1001' and "STATUS" = 'PAID' and "AMOUNT" = '99.5' and "ORDER_DATE" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and "NOTE" = 'O''Brien';"#;

/// Options that recover values holding an undoubled quote.
const RELAXED: ParseOptions = ParseOptions {
    relaxed_quotes: true,
};

mod charset;
mod findings;
mod masks;
mod properties;
mod relaxed;
mod statements;
mod values;
