//! Where `run` writes events: JSON lines to stdout or a file.
