//! How fast the `tail` screen keeps up: applying engine batches to the
//! state, drawing a full frame over a full ring (with and without a filter),
//! and plain mode's JSON lines. Figures are printed, never asserted.
//!
//! Run: `cargo bench --bench tail_screen`

use std::hint::black_box;
use std::sync::mpsc::sync_channel;
use std::time::{Duration, Instant};

use cdcctl::engine::metrics::EngineMessage;
use cdcctl::tui::feed;
use cdcctl::tui::plain::{run_plain, PlainOptions};
use cdcctl::tui::{ui, App, AppEvent, ViewConfig};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// The allocator the `cdcctl` binary ships with, so the figures are the
/// binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EVENTS: u64 = 200_000;
const BATCH: u64 = 200;

fn full_app() -> App {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    for start in (0..20_000).step_by(BATCH as usize) {
        let batch = (start..start + BATCH).map(feed::sample_change).collect();
        app.update(AppEvent::Engine(EngineMessage::Events(batch)));
    }
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
        feed::steady_status(30),
    ))));
    app
}

fn per_second(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn bench_update() {
    let batches: Vec<Vec<_>> = (0..EVENTS / BATCH)
        .map(|b| {
            (b * BATCH..(b + 1) * BATCH)
                .map(feed::sample_change)
                .collect()
        })
        .collect();
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    let t = Instant::now();
    for batch in batches {
        app.update(AppEvent::Engine(EngineMessage::Events(batch)));
    }
    let d = t.elapsed();
    black_box(&app);
    println!(
        "update: {EVENTS} events in batches of {BATCH}: {:.0} ms, {:.0} events/s",
        d.as_secs_f64() * 1e3,
        per_second(EVENTS, d)
    );
}

fn bench_draw(label: &str, app: &App, frames: u32) {
    let mut terminal = match Terminal::new(TestBackend::new(160, 50)) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("test backend: {e}");
            return;
        }
    };
    let t = Instant::now();
    for _ in 0..frames {
        if let Err(e) = terminal.draw(|f| ui::draw(app, f)) {
            eprintln!("draw: {e}");
            return;
        }
    }
    let d = t.elapsed();
    println!(
        "draw {label}: 160x50, ring {} kept: {:.2} ms/frame",
        app.ring_len(),
        d.as_secs_f64() * 1e3 / f64::from(frames)
    );
}

fn bench_plain() {
    let (tx, rx) = sync_channel(64);
    let producer = std::thread::spawn(move || {
        for b in 0..EVENTS / BATCH {
            let batch = (b * BATCH..(b + 1) * BATCH)
                .map(feed::sample_change)
                .collect();
            if tx.send(EngineMessage::Events(batch)).is_err() {
                return;
            }
        }
    });
    let opts = PlainOptions::default();
    let t = Instant::now();
    let outcome = run_plain(&rx, &mut std::io::sink(), &mut std::io::sink(), &opts);
    let d = t.elapsed();
    let _ = producer.join();
    match outcome {
        Ok(o) => println!(
            "plain: {} events to a sink (generation included): {:.0} events/s",
            o.emitted,
            per_second(o.emitted, d)
        ),
        Err(e) => eprintln!("plain: {e}"),
    }
}

fn main() {
    bench_update();
    let mut app = full_app();
    bench_draw("following", &app, 200);
    for c in "/shipped".chars() {
        app.update(AppEvent::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )));
    }
    app.update(AppEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    bench_draw("filtered by text", &app, 50);
    app.update(AppEvent::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    bench_draw("filtered, detail open", &app, 50);
    bench_plain();
}
