//! What the simulator holds in memory per redo record at the soak's
//! workload (`benches/soak.toml`, or the scenario given): heap bytes live
//! per record held, counted by a global allocator, over a stretch of
//! generation where nothing is deleted, and the same figure on the heap
//! alone of the records (`Model::records`) and the rest of the model.
//!
//! `cargo bench --bench sim_memory` (`-- N` records measured, default
//! 600000; `-- FILE` another scenario).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

use cdcctl::source::sim::scenario::Scenario;
use cdcctl::source::sim::{Clock, Sim};

/// Bytes currently allocated through the global allocator.
static LIVE: AtomicI64 = AtomicI64::new(0);

struct Counting;

// SAFETY: every call goes straight to the system allocator; the counter
// only observes sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

fn main() {
    let mut n: u64 = 600_000;
    let mut file = String::from("benches/soak.toml");
    for a in std::env::args().skip(1).filter(|a| a != "--bench") {
        match a.parse() {
            Ok(v) => n = v,
            Err(_) => file = a,
        }
    }
    let mut scenario = match Scenario::load(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(2);
        }
    };
    // Nothing may be deleted while measuring: every record made stays.
    scenario.redo.memory_records = usize::MAX / 2;
    let mut sim = Sim::new(scenario, Clock::default());
    sim.set_truth_limit(Some(0));
    // Past the warm-up's start-up allocations (tables, first logs).
    sim.pregenerate(100_000);
    let inline = std::mem::size_of::<cdcctl::source::sim::model::Rec>();
    // The deque's buffer grows by doubling: counted at one slot a record,
    // its jumps would make the figure depend on where N falls.
    let outside = |sim: &Sim| {
        let m = sim.model();
        (
            live() - (m.records.capacity() * inline) as i64,
            m.records.len(),
        )
    };
    let (bytes0, held0) = outside(&sim);
    let made = sim.pregenerate(n);
    let (bytes1, held1) = outside(&sim);
    let held = held1.saturating_sub(held0).max(1);
    let per_record = (bytes1 - bytes0) as f64 / held as f64 + inline as f64;
    println!(
        "{file}: {made} records generated, {held} more held: {per_record:.0} bytes per record \
         held ({inline} in the record itself, {:.0} on the heap beside it)",
        per_record - inline as f64
    );
}
