//! Unit tests of the simulator as a whole (scenario → redo → rows).
use super::*;

#[test]
fn demo_builds() {
    let sim = Sim::from_spec("demo").unwrap();
    assert!(sim.model().scn > 0);
}
