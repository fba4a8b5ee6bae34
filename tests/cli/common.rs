//! Comparisons shared by the modules that check captured changes against
//! the simulator's ground truth.

use cdcctl::engine::event::{Field, Image};

/// Drops LOB placeholders: LOB columns are absent from UPDATE/DELETE redo,
/// while the truth names them as unavailable.
pub fn known(image: &Option<Image>) -> Option<Image> {
    image.as_ref().map(|i| {
        i.iter()
            .filter(|(_, f)| *f != Field::Unavailable)
            .cloned()
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
            map.retain(|_, x| x != "__debezium_unavailable_value");
        }
    }
    v
}
