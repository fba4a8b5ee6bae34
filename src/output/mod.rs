//! Renderers shared by commands: tables, JSON, JUnit, progress bars.
