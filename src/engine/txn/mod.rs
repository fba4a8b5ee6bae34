//! The transaction buffer: rows of `V$LOGMNR_CONTENTS` (mined without
//! COMMITTED_DATA_ONLY) in, committed change events out, in commit order.
