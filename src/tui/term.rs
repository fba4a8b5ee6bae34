//! The terminal side of `tail`: raw mode and the alternate screen, restored
//! on quit, on error (a `Drop` guard), on panic (a hook) and on SIGTERM or
//! SIGHUP (a flag the loop checks); and the loop that
//! waits on {input, engine, tick} and redraws at a steady rate.
//!
//! Input and the engine each get a thread that forwards into one bounded
//! channel, so the loop never blocks on either and the engine's back-pressure
//! is kept.

use std::io::{self, stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Once};
use std::thread;
use std::time::{Duration, Instant};

use crossterm::cursor::{Hide, Show};
use crossterm::event::{self, Event};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, BeginSynchronizedUpdate, EndSynchronizedUpdate,
    EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use crate::engine::metrics::EngineMessage;

use super::app::{App, AppEvent, HeaderInfo, ViewConfig};
use super::ui;

/// Time between ticks: ages, throughput and staleness move on this.
pub const TICK: Duration = Duration::from_millis(250);
/// Shortest time between two frames while messages pour in.
pub const MIN_FRAME: Duration = Duration::from_millis(100);
/// Messages applied before a frame is drawn, so a flood cannot starve drawing.
const MAX_BATCH: usize = 1_024;

/// Why the screen could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("cannot drive the terminal ({0}); run with --plain for JSON lines")]
    Terminal(#[from] io::Error),
}

/// Puts the terminal back: cooked mode, main screen, visible cursor.
pub fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), LeaveAlternateScreen, Show);
}

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // The message must land on a usable terminal, not inside raw mode.
            restore_terminal();
            previous(info);
        }));
    });
}

/// Raw mode and the alternate screen for as long as it lives.
pub struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        let guard = TerminalGuard { _private: () };
        enable_raw_mode()?;
        execute!(stdout(), EnterAlternateScreen, Hide)?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn forward_engine(rx: Receiver<EngineMessage>, tx: SyncSender<AppEvent>) {
    thread::spawn(move || {
        for msg in rx.iter() {
            if tx.send(AppEvent::Engine(msg)).is_err() {
                return;
            }
        }
        // The engine's sender is gone: it stopped, whether it said so or not.
        let _ = tx.send(AppEvent::Engine(EngineMessage::Stopped));
    });
}

fn forward_input(tx: SyncSender<AppEvent>, stop: Arc<AtomicBool>) {
    thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            let ev = match event::poll(Duration::from_millis(100))
                .and_then(|ready| ready.then(event::read).transpose())
            {
                Ok(None) => continue,
                Ok(Some(Event::Key(k))) => AppEvent::Key(k),
                Ok(Some(Event::Resize(w, h))) => AppEvent::Resize(w, h),
                Ok(Some(_)) => continue,
                Err(_) => {
                    let _ = tx.send(AppEvent::InputClosed);
                    return;
                }
            };
            // Keys must not be lost: block until the loop takes them.
            if tx.send(ev).is_err() {
                return;
            }
        }
    });
}

/// A flag raised by SIGTERM, SIGHUP or SIGINT so the loop ends and the
/// guard restores the terminal; a second signal of the same kind kills the
/// process the default way, in case the loop is stuck.
fn watch_termination() -> io::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [SIGTERM, SIGHUP, SIGINT] {
        signal_hook::flag::register_conditional_default(sig, flag.clone())?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(flag)
}

/// Runs the screen until the operator quits; returns the final state (the
/// caller maps a fatal source error to an exit code).
pub fn run(
    header: HeaderInfo,
    engine: Receiver<EngineMessage>,
    config: ViewConfig,
) -> Result<App, TuiError> {
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    terminal.clear()?;
    let mut app = App::new(header, config);
    let size = terminal.size()?;
    app.update(AppEvent::Resize(size.width, size.height));

    let (tx, rx) = sync_channel::<AppEvent>(MAX_BATCH);
    let stop = Arc::new(AtomicBool::new(false));
    forward_engine(engine, tx.clone());
    forward_input(tx.clone(), stop.clone());
    drop(tx);

    let terminated = watch_termination()?;
    let start = Instant::now();
    let mut last_draw: Option<Instant> = None;
    let mut last_tick = Instant::now();
    let mut dirty = true;
    let result = loop {
        let due = last_draw.is_none_or(|t| t.elapsed() >= TICK)
            || (dirty && last_draw.is_some_and(|t| t.elapsed() >= MIN_FRAME));
        if due {
            // A terminal that knows synchronized output (mode 2026) shows
            // the frame whole: a fast list never appears half old, half new.
            let _ = execute!(stdout(), BeginSynchronizedUpdate);
            let drawn = terminal.draw(|f| ui::draw(&app, f));
            let _ = execute!(stdout(), EndSynchronizedUpdate);
            if let Err(e) = drawn {
                break Err(TuiError::Terminal(e));
            }
            last_draw = Some(Instant::now());
            dirty = false;
        }
        let wait = TICK
            .saturating_sub(last_tick.elapsed())
            .max(Duration::from_millis(5));
        match rx.recv_timeout(if dirty { MIN_FRAME.min(wait) } else { wait }) {
            Ok(ev) => {
                app.update(ev);
                for ev in rx.try_iter().take(MAX_BATCH) {
                    app.update(ev);
                }
                dirty = true;
            }
            Err(RecvTimeoutError::Timeout) => {}
            // Both forwarders are gone: no key can come any more.
            Err(RecvTimeoutError::Disconnected) => break Ok(()),
        }
        if last_tick.elapsed() >= TICK {
            last_tick = Instant::now();
            app.update(AppEvent::Tick(start.elapsed()));
            dirty = true;
        }
        if app.should_quit || terminated.load(Ordering::Relaxed) {
            break Ok(());
        }
    };
    stop.store(true, Ordering::Relaxed);
    drop(terminal);
    drop(guard);
    result.map(|()| app)
}
