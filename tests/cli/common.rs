//! Comparisons shared by the modules that check captured changes against
//! the simulator's ground truth, and the SCN window of a built-in scenario.

use cdcctl::engine::event::Image;

/// Drops LOB placeholders: LOB columns are absent from UPDATE/DELETE redo,
/// while the truth names them as unavailable.
pub fn known(image: &Option<Image>) -> Option<Image> {
    image.as_ref().map(|i| {
        i.iter()
            .filter(|(_, f)| !f.is_unavailable())
            .map(|(c, f)| (c, f.to_field()))
            .collect()
    })
}

/// An envelope without what a table filter legitimately changes and what
/// redo cannot carry: the position in the transaction counts only the
/// captured tables' changes (the truth counts all), and LOB placeholders.
pub fn without_unavailable(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(map) = v.as_object_mut() {
        map.remove("transaction");
    }
    for image in ["before", "after"] {
        if let Some(map) = v[image].as_object_mut() {
            // The placeholder as text, and as base64 bytes in a BLOB column.
            map.retain(|_, x| {
                x != "__debezium_unavailable_value"
                    && x != "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="
            });
        }
    }
    v
}

/// The demo's redo window after warm-up, as `--from-scn`/`--until-scn`
/// values: its first SCN and the SCN the simulator stands at when a command
/// opens it.
pub fn demo_window() -> (String, String) {
    use cdcctl::source::sim::Sim;
    use cdcctl::source::RedoSource;
    let mut s = Sim::from_spec("demo").expect("demo scenario");
    let start = s.scenario().instance.start_scn;
    let now = s.current_scn().expect("current SCN").scn;
    (start.to_string(), now.to_string())
}

/// Runs the cdcctl binary with no source from the environment and no colour.
pub fn cdcctl(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(args)
        .env_remove("CDCCTL_SOURCE")
        .env("NO_COLOR", "1")
        .output()
        .expect("the cdcctl binary runs")
}
