//! Checkpoints: the restart SCN, the commit SCN with the XIDs committed at
//! it, and the index of the last event emitted inside a transaction.
