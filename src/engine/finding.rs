//! Diagnoses the engine raises instead of guessing: typed, so callers can
//! count them, show them as alerts, or stop on them.

use serde::Serialize;

/// Something about a captured row that an operator must know.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// An UPDATE/DELETE whose WHERE has `ROWID = ...` and none of the key
    /// columns: the table lacks supplemental logging, so the before image
    /// holds only what the redo carried.
    PartialBeforeImage {
        schema: String,
        table: String,
        row_id: Option<String>,
    },
    /// LogMiner rendered `"UNKNOWN"."OBJ# n"` or `"COL n"`: its dictionary
    /// does not know the object (dropped, DDL since the catalog was read).
    DictionaryMismatch {
        object_id: Option<u64>,
        detail: String,
    },
    /// `STATUS = 2`: LogMiner could not rebuild the statement; INFO says why.
    Unreconstructable { info: String },
    /// A column LogMiner showed as `Unsupported Type`.
    UnsupportedType {
        schema: String,
        table: String,
        column: String,
    },
    /// A string value holding a quote LogMiner did not double, recovered
    /// from the statement's shape (`--relaxed-quotes`).
    UnescapedQuote {
        schema: String,
        table: String,
        column: String,
    },
    /// An UPDATE or DELETE of a table with a LOB (or XMLType) column the
    /// redo row did not carry: the column is in the images as the
    /// unavailable marker, never left out (a consumer would read a missing
    /// field as NULL).
    LobUnavailable {
        schema: String,
        table: String,
        column: String,
    },
    /// An UPDATE or DELETE whose redo carried no value for a column that
    /// is not a LOB (an extended VARCHAR2 kept out of line, a column the
    /// table's supplemental logging does not log, the rest of a row whose
    /// LOB was written alone through `dbms_lob` on a key-logged table): the
    /// column is in the images as the unavailable marker, never left out.
    ColumnUnavailable {
        schema: String,
        table: String,
        column: String,
    },
    /// A DM8 LOB column shown as `OUT_CLOB` in SQL_REDO: DM8 never writes
    /// a large LOB's content to its log, so no mode of cdcctl can give it;
    /// the column is in the images as the unavailable marker.
    LobNotLogged {
        schema: String,
        table: String,
        column: String,
    },
    /// A `HEXTORAW` value left as hex where it may be character data: no
    /// dictionary to tell RAW from text, a table the dictionary does not
    /// know, or bytes not valid in the column's character set.
    CharacterHex {
        schema: String,
        table: String,
        column: String,
        reason: String,
    },
    /// A native JSON column (`/* JSON */` in SQL_REDO) whose value is not
    /// JSON text: not logged in the row (`EMPTY_BLOB()`), or binary OSON
    /// cdcctl could not decode; either way the value is unavailable.
    JsonUndecoded {
        schema: String,
        table: String,
        column: String,
        /// `unavailable` or `oson_hex`.
        form: String,
    },
    /// A DM8 UPDATE or DELETE whose WHERE holds the key columns alone:
    /// `RLOG_APPEND_LOGIC = 1` logs only the key of a table with a primary
    /// key, so the before image lacks every other column.
    KeyOnlyBeforeImage { schema: String, table: String },
    /// A row whose OPERATION_CODE cdcctl does not know (a code a release
    /// added): its change, if it carries one, is not in the stream.
    UnknownOperation {
        code: u16,
        schema: String,
        table: String,
    },
    /// A transaction taken as rolled back because the database no longer
    /// listed it open (DM8's V$TRX) wrote again: the changes buffered
    /// before the drop are lost, and its events are marked partial.
    ReappearedTransaction { xid: String },
    /// DM8 rendered `changes` changes of the table made before a DDL of
    /// it after that DDL (the capture was behind, or mined them again
    /// after a restart): their events carry the columns as they are after
    /// the DDL, not as the rows were written.
    DictionaryDrift {
        schema: String,
        table: String,
        changes: u64,
    },
}

impl Finding {
    /// Stable identifier for counting and filtering.
    pub fn code(&self) -> &'static str {
        match self {
            Finding::PartialBeforeImage { .. } => "partial_before_image",
            Finding::DictionaryMismatch { .. } => "dictionary_mismatch",
            Finding::Unreconstructable { .. } => "unreconstructable",
            Finding::UnsupportedType { .. } => "unsupported_type",
            Finding::JsonUndecoded { .. } => "json_undecoded",
            Finding::UnescapedQuote { .. } => "unescaped_quote",
            Finding::CharacterHex { .. } => "character_hex",
            Finding::LobUnavailable { .. } => "lob_unavailable",
            Finding::ColumnUnavailable { .. } => "column_unavailable",
            Finding::LobNotLogged { .. } => "lob_not_logged",
            Finding::KeyOnlyBeforeImage { .. } => "key_only_before_image",
            Finding::UnknownOperation { .. } => "unknown_operation",
            Finding::ReappearedTransaction { .. } => "reappeared_transaction",
            Finding::DictionaryDrift { .. } => "dictionary_drift",
        }
    }

    /// One line an operator can act on.
    pub fn message(&self) -> String {
        match self {
            Finding::PartialBeforeImage { schema, table, .. } => format!(
                "{schema}.{table}: before image has no key columns (WHERE uses ROWID): the table lacks \
                 supplemental logging; run ALTER TABLE \"{schema}\".\"{table}\" ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS"
            ),
            Finding::DictionaryMismatch { object_id, detail } => match object_id {
                Some(id) => format!(
                    "dictionary mismatch: LogMiner does not know object {id} ({detail}); the table was dropped or \
                     changed after the dictionary was read"
                ),
                None => format!("dictionary mismatch: {detail}"),
            },
            Finding::Unreconstructable { info } => {
                format!("LogMiner could not rebuild the statement (STATUS=2): {info}")
            }
            Finding::UnsupportedType { schema, table, column } => format!(
                "{schema}.{table}.{column}: LogMiner shows `Unsupported Type`; the value is unavailable"
            ),
            Finding::LobUnavailable { schema, table, column } => format!(
                "{schema}.{table}.{column}: LOB or XML value not in the DML redo (updates and \
                 deletes never carry it; inserts carry it in LOB/XML rows, read with --lob capture); \
                 given as __debezium_unavailable_value"
            ),
            Finding::ColumnUnavailable { schema, table, column } => format!(
                "{schema}.{table}.{column}: an update or delete whose redo carries no value for this \
                 column (not supplementally logged, or kept out of line); given as \
                 __debezium_unavailable_value"
            ),
            Finding::LobNotLogged { schema, table, column } => format!(
                "{schema}.{table}.{column}: DM8 never writes the content of a large LOB to its log \
                 (SQL_REDO shows OUT_CLOB), so no capture mode can give it; given as \
                 __debezium_unavailable_value"
            ),
            Finding::CharacterHex { schema, table, column, reason } => format!(
                "{schema}.{table}.{column}: LogMiner printed HEXTORAW and the value stays bytes (written as --binary-handling says): {reason}"
            ),
            Finding::UnescapedQuote { schema, table, column } => format!(
                "{schema}.{table}.{column}: LogMiner did not double a quote inside the value; it was \
                 recovered from the statement's shape (--relaxed-quotes)"
            ),
            Finding::JsonUndecoded { schema, table, column, form } if form == "unavailable" => format!(
                "{schema}.{table}.{column}: native JSON value not in the row (`/* JSON */ EMPTY_BLOB()`); \
                 the value is unavailable"
            ),
            Finding::JsonUndecoded { schema, table, column, .. } => format!(
                "{schema}.{table}.{column}: native JSON value in binary OSON form that cdcctl could not decode \
                 (a type it does not read, or damaged bytes); the value is unavailable"
            ),
            Finding::KeyOnlyBeforeImage { schema, table } => format!(
                "{schema}.{table}: the DM8 before image holds the key columns alone (RLOG_APPEND_LOGIC = 1); \
                 run SP_SET_PARA_VALUE(1, 'RLOG_APPEND_LOGIC', 2) for full before images"
            ),
            Finding::UnknownOperation { code, schema, table } => format!(
                "{schema}.{table}: a row with OPERATION_CODE {code}, which cdcctl does not know; \
                 whatever change it carries is not in the stream"
            ),
            Finding::DictionaryDrift { schema, table, changes } => format!(
                "{schema}.{table}: DM8 renders SQL_REDO with the columns a table has when the row \
                 is mined, and {changes} change(s) of it made before this DDL were mined after it \
                 (capture behind, or mining again after a restart): their events carry the columns \
                 as they are after the DDL (an added column as NULL, a dropped one missing), not as \
                 the rows were written"
            ),
            Finding::ReappearedTransaction { xid } => format!(
                "transaction {xid} was dropped as rolled back when the open-transaction list no \
                 longer showed it, then wrote again: its changes before the drop are lost and its \
                 events are marked partial"
            ),
        }
    }
}
