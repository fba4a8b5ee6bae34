//! Why a scenario could not be used, and where in its text.

/// A scenario file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    #[error("unknown scenario `{name}`: the built-in scenarios are {builtins}; or give the path of a .toml file")]
    UnknownBuiltin { name: String, builtins: String },
    #[error("cannot read scenario file {path}: {message}; check the path, or name a built-in scenario (cdcctl sim scenarios)")]
    Io { path: String, message: String },
    #[error("{origin}, line {line}, column {column}, key `{key}`: {message}")]
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        key: String,
        message: String,
    },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}

impl ScenarioError {
    /// An error at `span` of the scenario text, naming `key`.
    pub(super) fn at(
        text: &str,
        origin: &str,
        span: std::ops::Range<usize>,
        key: &str,
        message: String,
    ) -> ScenarioError {
        let (line, column) = line_col(text, span.start);
        ScenarioError::Syntax {
            origin: origin.to_string(),
            line,
            column,
            key: key.to_string(),
            message,
        }
    }

    /// The maker of [`ScenarioError::Invalid`] errors of one scenario file.
    pub(super) fn invalid_in(origin: &str) -> impl Fn(String) -> ScenarioError + '_ {
        move |message| ScenarioError::Invalid {
            origin: origin.to_string(),
            message,
        }
    }
}

/// Line and column (1-based) of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |p| offset - p - 1) + 1;
    (line, col)
}
