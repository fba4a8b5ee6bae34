//! The `tail` screen: state, input and widgets; the engine runs on its own thread.
