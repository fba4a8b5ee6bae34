//! Preflight rules: pure functions from catalog facts (and an optional connector config) to findings.
