//! A run's start, in the order that keeps a refused start harmless: the
//! locks, the stored checkpoint, the output weighed against it and the
//! snapshot mode ([`prepare`]); then the source ([`open_source`]); then the
//! capture engine at its start position, the snapshot to take or resume,
//! and the first checkpoint of a fresh stream ([`begin`]).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::connect::{OpenError, OpenedSource};
use crate::engine::capture::{Capture, CaptureConfig, StartAt};
use crate::engine::checkpoint::{Checkpoint, EventPosition, FileCheckpointStore};
use crate::engine::event::ColumnKind;
use crate::engine::lob_memory::LobMemory;
use crate::engine::session::{plan, PlanError, PlannerConfig};
use crate::engine::snapshot::{KeyKind, SnapshotKey, SnapshotMode, SnapshotProgress, Snapshotter};
use crate::engine::txn::{BufferConfig, LobMode, OnParseError};
use crate::sink::kafka::KafkaSink;
use crate::sink::lock::WriterLock;
use crate::sink::schema_changes::{SchemaChangeRouter, SchemaChanges};
use crate::sink::stream;
use crate::sink::EventSink;
use crate::source::{RedoSource, ScnTime, TableName};

use super::config::DaemonConfig;
use super::error::DaemonError;
use super::fetch::Prefetch;
use super::mine::{Origin, Stamp};
use super::notice::{Level, Notice, Reporter};
use super::output::{open_output, take_writer_locks, OpenedOutput};
use super::readers::Readers;
use super::snapshot::{self, SnapshotPlan, SnapshotTables};
use super::stoppable;

/// What is known before the source is opened.
pub struct Prepared {
    /// Held until the run ends.
    pub locks: Vec<WriterLock>,
    kafka: Option<KafkaSink>,
    existing: Option<Checkpoint>,
    store: FileCheckpointStore,
    output: Option<OpenedOutput>,
    mode: SnapshotMode,
    /// How notices name where the checkpoint is kept.
    pub checkpoint_name: String,
}

impl Prepared {
    /// The snapshot mode the options and the checkpoint give.
    pub fn mode(&self) -> SnapshotMode {
        self.mode
    }
}

/// A run ready to mine.
pub struct Started {
    pub capture: Capture<Prefetch>,
    pub snapshot: Option<Snapshotter>,
    /// Sessions reading the snapshot's chunks beside the stream.
    pub readers: Option<Readers>,
    pub mode: SnapshotMode,
    pub sink: Box<dyn EventSink>,
    /// Where checkpoints go; `None` when the sink keeps them.
    pub store: Option<FileCheckpointStore>,
    pub stamp: Stamp,
    pub rotated_after: Option<EventPosition>,
    /// The last event the destination held at start.
    pub destination_last: Option<EventPosition>,
    /// LOB values remembered for updates that leave a LOB alone.
    pub lob_memory: Option<LobMemory>,
}

fn say(reporter: &dyn Reporter, message: String) {
    reporter.notice(Notice::info(message));
}

/// Locks, the stored checkpoint and the output; `None` when there is
/// nothing to do (a finished snapshot asked for again).
/// What preparing a run came to.
pub enum Preparation {
    Ready(Box<Prepared>),
    /// A finished snapshot asked for again.
    NothingToDo,
    /// A signal came while the sink was being opened.
    Stopped,
}

pub fn prepare(
    config: &DaemonConfig,
    reporter: &dyn Reporter,
    stop: &AtomicBool,
) -> Result<Preparation, DaemonError> {
    config.validate()?;
    let locks = take_writer_locks(config)?;
    let store = FileCheckpointStore::new(&config.checkpoint);
    let (kafka, existing, checkpoint_name) = match config.kafka() {
        Some(k) => {
            let mut k = k.clone();
            k.oversize_dead_letter =
                (config.on_parse_error == OnParseError::Warn).then(|| config.dead_letter.clone());
            let Some(sink) = stoppable::open_kafka(k.clone(), stop)? else {
                return Ok(Preparation::Stopped);
            };
            let existing = sink.stored_checkpoint().cloned();
            (
                Some(sink),
                existing,
                format!("Kafka topic {}", k.offsets_topic()),
            )
        }
        None => (
            None,
            load_checkpoint(&store, reporter)?,
            config.checkpoint.display().to_string(),
        ),
    };
    if existing.is_some() && config.from_scn.is_some() {
        return Err(DaemonError::usage(format!(
            "--from-scn conflicts with the existing checkpoint {checkpoint_name}: remove it to \
             start over, or drop --from-scn to resume"
        )));
    }
    let mode = snapshot_mode(config, existing.is_none())?;
    let stored = existing.as_ref().and_then(|c| c.snapshot.as_ref());
    if mode == SnapshotMode::InitialOnly && stored.is_some_and(SnapshotProgress::finished) {
        say(
            reporter,
            format!(
                "the snapshot of checkpoint {} is complete; --snapshot initial-only has \
                 nothing to do (run without it to stream on)",
                config.checkpoint.display()
            ),
        );
        return Ok(Preparation::NothingToDo);
    }
    Ok(Preparation::Ready(Box::new(Prepared {
        locks,
        kafka,
        existing,
        store,
        output: None,
        mode,
        checkpoint_name,
    })))
}

impl Prepared {
    /// Checks the output against the checkpoint. Called once the source is
    /// open, so that a refused table is named before a doubtful output.
    pub fn open_output(
        &mut self,
        config: &DaemonConfig,
        reporter: &dyn Reporter,
    ) -> Result<(), DaemonError> {
        if self.kafka.is_none() {
            self.output = Some(open_output(config, self.existing.as_ref(), reporter)?);
        }
        Ok(())
    }
}

/// The checkpoint file, after removing what an interrupted save left.
fn load_checkpoint(
    store: &FileCheckpointStore,
    reporter: &dyn Reporter,
) -> Result<Option<Checkpoint>, DaemonError> {
    match store.remove_stale_temp_files() {
        Ok(0) => {}
        Ok(n) => say(
            reporter,
            format!("removed {n} temporary file(s) of an interrupted checkpoint save"),
        ),
        Err(e) => return Err(DaemonError::usage(e.to_string())),
    }
    store
        .load()
        .map_err(|e| DaemonError::usage(format!("checkpoint {}: {e}", store.path().display())))
}

fn snapshot_mode(config: &DaemonConfig, fresh: bool) -> Result<SnapshotMode, DaemonError> {
    Ok(match (config.snapshot, fresh, config.from_scn) {
        (Some(m), _, Some(_)) if m != SnapshotMode::Never => {
            return Err(DaemonError::usage(
                "--snapshot reads the tables as they are now, while --from-scn starts the \
                 stream at an older SCN: give one or the other (--snapshot never with \
                 --from-scn)",
            ))
        }
        (Some(m), _, _) => m,
        (None, true, None) => SnapshotMode::Initial,
        (None, _, _) => SnapshotMode::Never,
    })
}

/// Opens the source at the highest SCN the checkpoint knows the database
/// reached, refusing a snapshot the instance cannot give.
pub fn open_source(
    config: &DaemonConfig,
    prepared: &Prepared,
    reporter: &dyn Reporter,
) -> Result<(OpenedSource, SnapshotMode), DaemonError> {
    let resume_scn = prepared.existing.as_ref().map(|c| {
        c.restart_scn
            .max(c.commit_scn)
            .max(c.last_event.as_ref().map_or(0, |e| e.commit_scn))
    });
    let opened = config.source.open(resume_scn).map_err(DaemonError::Open)?;
    for w in &opened.warnings {
        reporter.notice(Notice {
            level: Level::Warn,
            message: w.message.clone(),
            advice: Some(w.advice.clone()),
            fields: Vec::new(),
        });
    }
    // A snapshot that cannot be read (DM8 without flashback) is refused
    // before a checkpoint promises it, whether asked for or the default.
    let unfinished = prepared
        .existing
        .as_ref()
        .and_then(|c| c.snapshot.as_ref())
        .is_some_and(|p| !p.finished());
    if prepared.mode != SnapshotMode::Never || unfinished {
        if let Some(stop) = &opened.snapshot_stop {
            return Err(DaemonError::Open(OpenError {
                exit_code: crate::exit::UNTRUSTED_DATA,
                message: crate::exit::with_advice(&stop.message, Some(&stop.advice)),
                transient: false,
            }));
        }
    }
    let mode = prepared.mode;
    Ok((opened, mode))
}

/// The capture engine over the opened source, the snapshot, and the
/// first checkpoint of a fresh (or re-snapshotted) stream.
pub fn begin(
    config: &DaemonConfig,
    mut prepared: Prepared,
    opened: OpenedSource,
    mode: SnapshotMode,
    reporter: &dyn Reporter,
) -> Result<Started, DaemonError> {
    let existing = prepared.existing.take();
    let fresh = existing.is_none();
    let output = prepared.output.take();
    let (stream_id, rewind) = output
        .as_ref()
        .map_or((None, None), |o| (o.stream_id.clone(), o.rewind.clone()));
    let mut stamp = Stamp {
        stream_id,
        origin: Origin {
            db_name: opened.db_name.clone(),
            source: crate::connect::sim_scenario(&config.source.spec)
                .map(|name| format!("sim:{name}")),
            tables: typed_tables(config),
        },
        rewind_points: existing
            .as_ref()
            .map(|c| c.rewind_points.clone())
            .unwrap_or_default(),
    };
    let rotated = output.as_ref().and_then(|o| o.rotated.clone());
    let rotated_after = rotated
        .clone()
        .or_else(|| existing.as_ref().and_then(|c| c.rotated_after.clone()));
    let resumed = rewind.is_none() && existing.is_some();
    let stored_snapshot = existing.as_ref().and_then(|c| c.snapshot.clone());
    let start = match (rewind, existing, config.from_scn) {
        (Some(cp), _, _) => {
            prepared
                .store
                .overwrite(&cp)
                .map_err(|e| DaemonError::usage(e.to_string()))?;
            stamp.rewind_points.clone_from(&cp.rewind_points);
            StartAt::Checkpoint(cp)
        }
        (None, Some(cp), _) => StartAt::Checkpoint(cp),
        (None, None, Some(scn)) => StartAt::Scn(scn),
        (None, None, None) => StartAt::Now,
    };
    let tables = snapshot_tables(config, &opened);
    let mut sink = assemble_sink(config, prepared.kafka.take(), output, &opened)?;
    let mut capture_config = capture_config(config, &opened, start);
    let lob_memory = lob_memory(config, &opened);
    let mut source = Prefetch::spawn(opened.source)
        .map_err(|e| DaemonError::usage(format!("cannot start the fetch thread: {e}")))?;
    let current = first_current_scn(&mut source, reporter)?;
    // Start at the SCN just read rather than asking again: the capture
    // then makes no call of its own before its retrying loop.
    if matches!(capture_config.start, StartAt::Now) {
        capture_config.start = StartAt::Scn(current.scn);
    }
    check_start(config, &capture_config.start, current.scn, &stamp.origin)?;
    if let (true, StartAt::Checkpoint(cp)) = (resumed, &capture_config.start) {
        say(
            reporter,
            format!(
                "resuming from {} (restart SCN {}, commit SCN {})",
                prepared.checkpoint_name, cp.restart_scn, cp.commit_scn
            ),
        );
    }
    sink.set_column_kinds(Arc::clone(&opened.column_kinds));
    let (stored_snapshot, resnapshot) = when_needed(
        mode,
        &mut capture_config,
        &mut source,
        current,
        stored_snapshot,
        &tables,
        reporter,
    )?;
    let mut capture = Capture::new(source, capture_config).map_err(DaemonError::Capture)?;
    let plan = SnapshotPlan {
        mode,
        asked: config.snapshot.is_some(),
        fresh,
        chunk_rows: config.snapshot_chunk_rows,
        marks: config.snapshot_marks,
        output: config.output_file(),
        forms: config.forms,
    };
    let snapshot = snapshot::plan(&plan, stored_snapshot, &tables, reporter)?;
    // A chunk a crash may have cut short is read again where it was read:
    // the stream must not pass that SCN first.
    capture.hold_at(snapshot.as_ref().and_then(Snapshotter::hold_scn));
    let readers = match &snapshot {
        Some(s) if !s.finished() && config.snapshot_readers > 0 => {
            open_readers(&*capture.source_mut(), config.snapshot_readers, reporter)?
        }
        _ => None,
    };
    let store = (!sink.keeps_checkpoint()).then_some(prepared.store);
    let mut started = Started {
        // An empty output that continues a rotated copy holds nothing yet:
        // the copy's last event is where the stream stands.
        destination_last: sink.last_position().or(rotated),
        capture,
        snapshot,
        readers,
        mode,
        sink,
        store,
        stamp,
        rotated_after,
        lob_memory,
    };
    if fresh || resnapshot {
        store_first_checkpoint(&mut started, resnapshot)?;
    }
    Ok(started)
}

/// The sessions that read the snapshot beside the stream; `None` where
/// the source has no second session, whose chunks are then read between
/// windows on the stream's.
fn open_readers(
    source: &dyn RedoSource,
    n: usize,
    reporter: &dyn Reporter,
) -> Result<Option<Readers>, DaemonError> {
    let readers =
        Readers::open(source, n).map_err(|e| DaemonError::Open(OpenError::from_source(&e)))?;
    if readers.is_none() {
        say(
            reporter,
            "the source has no second session: snapshot chunks are read on the mining session, \
             between windows"
                .into(),
        );
    }
    Ok(readers)
}

/// The tables in scope, for the snapshot.
fn snapshot_tables(config: &DaemonConfig, opened: &OpenedSource) -> SnapshotTables {
    SnapshotTables {
        names: if opened.tables.tables.is_empty() {
            opened
                .key_columns
                .keys()
                .map(|t| (t.clone(), None))
                .collect()
        } else {
            opened
                .tables
                .tables
                .iter()
                .map(|t| (t.name.clone(), t.num_rows))
                .collect()
        },
        key_columns: opened.key_columns.clone(),
        keys: snapshot_keys(opened),
        binary_columns: opened.binary_columns.clone(),
        server_name: config.server_name.clone(),
        db: opened
            .pdb_filter
            .clone()
            .unwrap_or_else(|| opened.db_name.clone()),
        dialect: opened.source.dialect(),
    }
}

/// The sink events go to: Kafka with the tables' keys, or the output,
/// behind the schema-change router when DDL goes elsewhere.
/// Each keyed table's key, with the order of each column's values.
fn snapshot_keys(opened: &OpenedSource) -> BTreeMap<TableName, SnapshotKey> {
    opened
        .key_columns
        .iter()
        .filter(|(_, columns)| !columns.is_empty())
        .map(|(table, columns)| {
            let kinds = opened
                .column_kinds
                .table(&table.owner, &table.table)
                .map(|t| t.kinds());
            let binary = opened.binary_columns.get(table);
            let kinds = columns
                .iter()
                .map(|c| match kinds.and_then(|k| k.get(c)) {
                    Some(ColumnKind::Number) => KeyKind::Number,
                    Some(ColumnKind::DateTime) => KeyKind::DateTime,
                    None if binary.is_some_and(|b| b.contains(c)) => KeyKind::Binary,
                    None => KeyKind::Text,
                })
                .collect();
            let key = SnapshotKey {
                columns: columns.clone(),
                kinds,
            };
            (table.clone(), key)
        })
        .collect()
}

fn assemble_sink(
    config: &DaemonConfig,
    kafka: Option<KafkaSink>,
    output: Option<OpenedOutput>,
    opened: &OpenedSource,
) -> Result<Box<dyn EventSink>, DaemonError> {
    let sink: Box<dyn EventSink> = match (kafka, output) {
        (Some(mut k), _) => {
            k.set_key_columns(opened.key_columns.clone());
            Box::new(k)
        }
        (None, Some(o)) => o.sink,
        (None, None) => return Err(DaemonError::usage("no sink to write to")),
    };
    Ok(match &config.schema_changes {
        SchemaChanges::Inline => sink,
        mode => Box::new(
            SchemaChangeRouter::new(sink, mode).map_err(|e| DaemonError::usage(e.to_string()))?,
        ),
    })
}

fn capture_config(config: &DaemonConfig, opened: &OpenedSource, start: StartAt) -> CaptureConfig {
    CaptureConfig {
        buffer: BufferConfig {
            server_name: config.server_name.clone(),
            db_name: opened.db_name.clone(),
            charsets: opened.charsets.clone(),
            on_parse_error: config.on_parse_error,
            relaxed_quotes: config.relaxed_quotes,
            lob: config.lob,
            spill_txn_bytes: Some(config.spill_mb.max(1) << 20),
            spill_dir: config.spill_dir.clone(),
            abandon_after: config.abandon_after,
            ..BufferConfig::default()
        },
        planner: PlannerConfig {
            archive_dest: config.archive_dest.clone(),
            max_logs_per_thread: config.max_logs_per_window,
        },
        tables: opened.tables.patterns.clone(),
        pdb: opened.pdb_filter.clone(),
        start,
        until_scn: config.until_scn,
        key_columns: opened.key_columns.clone(),
        polling: config.polling.clone(),
        lob_columns: opened.lob_columns.clone(),
        columns: opened.columns.clone(),
        binary_columns: opened.binary_columns.clone(),
        ..CaptureConfig::default()
    }
}

/// With `--lob capture`, the memory of LOB values per keyed row.
fn lob_memory(config: &DaemonConfig, opened: &OpenedSource) -> Option<LobMemory> {
    let bytes = usize::try_from(config.lob_memory_mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    (config.lob == LobMode::Capture && bytes > 0).then(|| {
        LobMemory::new(
            opened.lob_columns.clone(),
            opened.key_columns.clone(),
            bytes,
        )
    })
}

/// The database's current SCN, reconnecting on a dropped connection as the
/// capture loop does later (a drop before the first call is no different).
fn first_current_scn(
    source: &mut dyn RedoSource,
    reporter: &dyn Reporter,
) -> Result<ScnTime, DaemonError> {
    const ATTEMPTS: u32 = 5;
    let mut attempt = 0;
    loop {
        match source.current_scn() {
            Ok(t) => return Ok(t),
            Err(e) if e.is_transient() && attempt < ATTEMPTS => {
                attempt += 1;
                say(reporter, format!("{e}; reconnecting (attempt {attempt})"));
                std::thread::sleep(Duration::from_secs(1));
                if let Err(r) = source.reconnect() {
                    say(reporter, format!("reconnect failed: {r}"));
                }
            }
            Err(e) => return Err(DaemonError::Source(e)),
        }
    }
}

/// Refuses a start position that cannot be right for this database: above
/// its current SCN, a checkpoint of another database, a restart SCN of 0,
/// or a checkpoint already past the end asked for.
fn check_start(
    config: &DaemonConfig,
    start: &StartAt,
    current_scn: u64,
    origin: &Origin,
) -> Result<(), DaemonError> {
    let cp = match start {
        StartAt::Now => return Ok(()),
        StartAt::Scn(scn) if *scn > current_scn => {
            return Err(DaemonError::usage(format!(
                "--from-scn {scn} is above the database's current SCN {current_scn}"
            )))
        }
        StartAt::Scn(_) => return Ok(()),
        StartAt::Checkpoint(cp) => cp,
    };
    let name = config.checkpoint.display();
    let refuse = |what: String| {
        Err(DaemonError::usage(format!(
            "checkpoint {name} cannot be right for this source: {what}; use the checkpoint of \
             this database, or remove it to start over"
        )))
    };
    if let Some(db) = cp.db_name.as_deref().filter(|db| *db != origin.db_name) {
        return refuse(format!(
            "it was written for database {db}, the source is {}",
            origin.db_name
        ));
    }
    if let (Some(was), Some(is)) = (cp.source.as_deref(), origin.source.as_deref()) {
        if was != is {
            return refuse(format!("it was written for {was}, the source is {is}"));
        }
    }
    if cp.restart_scn == 0 {
        return refuse("its restart SCN is 0".into());
    }
    check_tables(config, cp, origin)?;
    let highest = cp.restart_scn.max(cp.commit_scn);
    if highest > current_scn {
        return refuse(format!(
            "it is at SCN {highest}, above the database's current SCN {current_scn} (a restored \
             or different database)"
        ));
    }
    if let Some(until) = config.until_scn.filter(|u| cp.commit_scn > *u) {
        return Err(DaemonError::usage(format!(
            "checkpoint {name} is already past --until-scn {until} (commit SCN {}): nothing to do",
            cp.commit_scn
        )));
    }
    Ok(())
}

/// The tables asked for, as typed, sorted: what a checkpoint records.
fn typed_tables(config: &DaemonConfig) -> Vec<String> {
    let mut t: Vec<String> = config
        .source
        .tables
        .iter()
        .map(ToString::to_string)
        .collect();
    t.sort();
    t.dedup();
    t
}

/// A checkpoint kept in Kafka is found by the server name alone: a capture
/// of other tables under the same name would resume from it and skip what
/// its own tables changed meanwhile.
fn check_tables(
    config: &DaemonConfig,
    cp: &Checkpoint,
    origin: &Origin,
) -> Result<(), DaemonError> {
    let super::config::SinkChoice::Kafka(k) = &config.sink else {
        return Ok(());
    };
    let Some(was) = cp.tables.as_ref().filter(|was| **was != origin.tables) else {
        return Ok(());
    };
    let list = |t: &[String]| {
        if t.is_empty() {
            "every table".to_string()
        } else {
            t.join(" ")
        }
    };
    Err(DaemonError::usage(format!(
        "the checkpoint of server name {} in Kafka was written by a capture of {}, and this one \
         captures {}: two captures of one database need their own --server-name (their own \
         topics, transactional id and checkpoint); to change the tables of this capture, \
         start it over under a new --server-name",
        k.server_name,
        list(was),
        list(&origin.tables)
    )))
}

/// `--snapshot when-needed`: a restart SCN whose redo is gone cannot be
/// streamed from; the tables are read again and the stream starts now.
/// Returns the snapshot to take and whether it is such a new one.
fn when_needed(
    mode: SnapshotMode,
    config: &mut CaptureConfig,
    source: &mut dyn RedoSource,
    current: ScnTime,
    stored: Option<SnapshotProgress>,
    tables: &SnapshotTables,
    reporter: &dyn Reporter,
) -> Result<(Option<SnapshotProgress>, bool), DaemonError> {
    let StartAt::Checkpoint(cp) = &config.start else {
        return Ok((stored, false));
    };
    if mode != SnapshotMode::WhenNeeded {
        return Ok((stored, false));
    }
    let Some(gone) = restart_redo_gone(source, cp.restart_scn, current.scn, &config.planner)?
    else {
        return Ok((stored, false));
    };
    say(
        reporter,
        format!(
            "WARNING: the checkpoint's restart SCN {} can no longer be streamed from ({gone}); \
             changes between it and now are lost to the stream. --snapshot when-needed: every \
             table is snapshotted again at the current SCN {} and the stream goes on from there. \
             Rows deleted in the gap get no delete event: empty the target tables (or drop keys \
             missing from this snapshot) before applying it",
            cp.restart_scn, current.scn
        ),
    );
    let mut again = SnapshotProgress::new(tables.names.clone());
    // Chunk numbers go on growing, so output positions do too.
    again.chunks = stored.as_ref().map_or(0, |p| p.chunks);
    config.start = StartAt::Scn(current.scn);
    Ok((Some(again), true))
}

/// Why the redo from `restart_scn` can no longer be mined (archived logs
/// deleted, a sequence gap), or `None` when it can.
fn restart_redo_gone(
    source: &mut dyn RedoSource,
    restart_scn: u64,
    current_scn: u64,
    planner: &PlannerConfig,
) -> Result<Option<String>, DaemonError> {
    let inventory = source.log_inventory().map_err(DaemonError::Source)?;
    Ok(match plan(&inventory, restart_scn, current_scn, planner) {
        Err(e @ (PlanError::StartScnNotCovered { .. } | PlanError::SequenceGap { .. })) => {
            Some(e.to_string())
        }
        _ => None,
    })
}

/// Stored before any event is written, so an output never holds events
/// without a checkpoint naming its stream. A snapshot taken again starts a
/// stream whose position is past the stored one: stored as such, the
/// checkpoint moves forward.
fn store_first_checkpoint(started: &mut Started, resnapshot: bool) -> Result<(), DaemonError> {
    let mut initial = if resnapshot {
        started.capture.checkpoint()
    } else {
        Checkpoint::new(started.capture.status().restart_scn, 0, Vec::new(), None)
    };
    let stamp = &mut started.stamp;
    initial.stream_id.clone_from(&stamp.stream_id);
    stamp.origin.stamp(&mut initial);
    if let Some(p) = initial.rewind_point() {
        stream::push_rewind_point(&mut stamp.rewind_points, p);
    }
    initial.rewind_points.clone_from(&stamp.rewind_points);
    initial.snapshot = started.snapshot.as_ref().map(|s| s.progress().clone());
    initial.last_event = started.sink.last_position();
    initial.output = started
        .sink
        .output_mark()
        .map_err(|e| DaemonError::usage(e.to_string()))?;
    let saved = match &started.store {
        Some(store) => store.save(&initial).map_err(|e| e.to_string()),
        None => started
            .sink
            .commit_with(Some(&initial))
            .map_err(|e| e.to_string()),
    };
    saved.map_err(|e| DaemonError::usage(format!("checkpoint: {e}")))
}
