//! Column types and values of the simulated tables, and how LogMiner shows
//! them: the SQL_REDO literal (under the session NLS settings of
//! sql-redo-format.md), the canonical text a correct capture engine emits,
//! and the raw bytes LogMiner prints as `HEXTORAW` when it has no dictionary.
//!
//! What fixes a literal's form beyond its value is [`Nls`]: the session's
//! timestamp format (`…SS.FF9` as cdcctl sets it, or `…SS.FF`, which prints
//! as many fraction digits as the column's precision: none for
//! TIMESTAMP(0)) and the character sets, in which character data LogMiner
//! cannot show as text is printed as `HEXTORAW` of its stored bytes.

mod data;
mod dm;
mod forms;
mod generate;
mod number;
mod oracle;
pub mod oson;
mod types;

pub use data::Value;
pub use dm::{DmLobForm, DM_INLINE_LOB_BYTES};
pub(crate) use forms::hex;
pub use forms::{displayable, number_text, render_nvarchar};
pub use generate::ValueGen;
pub use number::oracle_number;
pub use types::{ColType, Fraction, Nls, ALLOWED_DM_TYPES, ALLOWED_TYPES, INLINE_STRING_BYTES};
