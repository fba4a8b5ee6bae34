use std::collections::VecDeque;

use super::*;
use crate::engine::port::{
    ContentsQuery, Incarnation, LogInventory, OpenTransaction, ScnTime, SessionRequest,
    SnapshotChunk,
};
use crate::engine::row::LogMinerRow;

/// A source whose snapshot reads answer from a script, recording what was
/// asked; nothing else of it is used by the snapshot.
#[derive(Default)]
struct ScriptedReads {
    answers: VecDeque<Result<SnapshotChunk, SourceError>>,
    asked: Vec<(TableName, Scn, Option<Vec<String>>, usize)>,
    forgotten: Vec<TableName>,
    /// Answers to `segment_ids`; none left says the source cannot tell.
    segments: VecDeque<Vec<u64>>,
}

fn unused() -> SourceError {
    SourceError::Invalid("not used by the snapshot".into())
}

impl RedoSource for ScriptedReads {
    fn describe(&self) -> String {
        "scripted".into()
    }
    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        Err(unused())
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        Err(unused())
    }
    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        Err(unused())
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Err(unused())
    }
    fn start_session(&mut self, _: &SessionRequest) -> Result<(), SourceError> {
        Err(unused())
    }
    fn query_contents(&mut self, _: &ContentsQuery) -> Result<(), SourceError> {
        Err(unused())
    }
    fn fetch(&mut self, _: usize, _: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        Err(unused())
    }
    fn end_session(&mut self) -> Result<(), SourceError> {
        Err(unused())
    }
    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        self.asked.push((
            table.clone(),
            as_of_scn,
            after_key.map(<[String]>::to_vec),
            limit,
        ));
        self.answers.pop_front().unwrap_or_else(|| Err(unused()))
    }
    fn forget_segments(&mut self, table: &TableName) {
        self.forgotten.push(table.clone());
    }
    fn segment_ids(&mut self, _: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        Ok(self.segments.pop_front())
    }
    fn reconnect(&mut self) -> Result<(), SourceError> {
        Ok(())
    }
}

fn name(t: &str) -> TableName {
    TableName {
        owner: "APP".into(),
        table: t.into(),
    }
}

fn chunk(keys: &[u32], more: bool) -> Result<SnapshotChunk, SourceError> {
    Ok(SnapshotChunk {
        columns: vec!["ID".into(), "NOTE".into()],
        rows: keys
            .iter()
            .map(|k| vec![Some(k.to_string()), None])
            .collect(),
        last_key: more.then(|| vec![keys.last().map_or_else(String::new, u32::to_string)]),
    })
}

fn snapshotter(tables: &[&str], chunk_rows: usize) -> Snapshotter {
    Snapshotter::new(
        SnapshotProgress::new(tables.iter().map(|t| (name(t), None)).collect()),
        SnapshotConfig {
            chunk_rows,
            server_name: "cdcctl".into(),
            db: "ORCLPDB1".into(),
            binary_columns: BTreeMap::from([(name("A"), vec!["NOTE".to_string()])]),
            dialect: crate::engine::port::Dialect::Oracle,
            keys: BTreeMap::new(),
            marks: SnapshotMarks::Positions,
        },
    )
}

fn step(s: &mut Snapshotter, src: &mut ScriptedReads, scn: Scn) -> (Step, Vec<ChangeEvent>) {
    let mut out = Vec::new();
    let step = s
        .step(src, scn, 0, &mut |e| {
            if let CapturedEvent::Change(c) = e {
                out.push(c);
            }
            Ok(())
        })
        .expect("step");
    (step, out)
}

/// `source.snapshot` of the rows of several steps, in order.
fn markers(steps: &[&[ChangeEvent]]) -> Vec<&'static str> {
    steps
        .iter()
        .flat_map(|s| s.iter().map(|e| e.snapshot.label()))
        .collect()
}

#[test]
fn chunks_continue_after_the_last_key_and_the_final_row_is_marked_last() {
    let mut s = snapshotter(&["A", "B"], 2);
    let mut src = ScriptedReads::default();
    src.answers.extend([
        chunk(&[1, 2], true),
        // One row past the full chunk: there is more.
        chunk(&[3], false),
        chunk(&[3], false),
        // One row of B at A's end: B is not empty, A's end is not `last`.
        chunk(&[7], false),
        chunk(&[7], false),
    ]);
    let (_, a1) = step(&mut s, &mut src, 100);
    let (_, a2) = step(&mut s, &mut src, 105);
    let (_, b1) = step(&mut s, &mut src, 109);
    assert_eq!(step(&mut s, &mut src, 110).0, Step::Finished);
    assert_eq!(src.asked[2], (name("A"), 105, Some(vec!["2".into()]), 2));
    assert_eq!(src.asked[3], (name("B"), 105, None, 1));
    assert_eq!(src.asked[4], (name("B"), 109, None, 2));
    assert_eq!(
        markers(&[&a1, &a2, &b1]),
        ["first", "true", "last_in_data_collection", "last"]
    );
    let v: serde_json::Value = serde_json::from_str(&b1[0].to_json_line()).expect("json");
    assert_eq!(v["op"], "r");
    assert_eq!(v["source"]["scn"], "109");
    assert_eq!(v["source"]["snapshot_chunk"], 3);
    assert!(v["source"]["txId"].is_null() && v["transaction"].is_null());
    assert!(v["after"]["NOTE"].is_null());
    assert_eq!(s.progress().rows(), 4);
}

#[test]
fn a_last_table_of_exactly_full_chunks_marks_its_final_row_last() {
    let mut s = snapshotter(&["A"], 2);
    let mut src = ScriptedReads::default();
    src.answers.extend([
        chunk(&[1, 2], true),
        // One row past the chunk, at the chunk's SCN: there is more.
        chunk(&[3], false),
        chunk(&[3, 4], true),
        // Nothing past it: the chunk held the table's final rows.
        chunk(&[], false),
    ]);
    let (_, first) = step(&mut s, &mut src, 100);
    let (_, second) = step(&mut s, &mut src, 104);
    assert_eq!(step(&mut s, &mut src, 108).0, Step::Finished);
    assert_eq!(
        markers(&[&first, &second]),
        ["first", "true", "true", "last"]
    );
    assert_eq!(
        src.asked,
        [
            (name("A"), 100, None, 2),
            (name("A"), 100, Some(vec!["2".into()]), 1),
            (name("A"), 104, Some(vec!["2".into()]), 2),
            (name("A"), 104, Some(vec!["4".into()]), 1),
        ]
    );
    assert!(s.finished());
}

#[test]
fn a_failed_look_past_a_full_chunk_retries_the_chunk_and_emits_nothing() {
    let mut s = snapshotter(&["A"], 2);
    let mut src = ScriptedReads::default();
    src.answers.extend([
        chunk(&[1, 2], true),
        Err(SourceError::oracle(1555, "snapshot too old")),
        chunk(&[1, 2], false),
    ]);
    let (retry, none) = step(&mut s, &mut src, 100);
    assert_eq!(retry, Step::Retry);
    assert!(none.is_empty());
    let (_, rows) = step(&mut s, &mut src, 101);
    assert_eq!(markers(&[&rows]), ["first", "last"]);
    assert_eq!(src.asked[2], (name("A"), 101, None, 2));
}

#[test]
fn positions_mark_the_first_row_and_each_tables_start_and_end_issue33() {
    let mut s = snapshotter(&["A", "B", "C"], 2);
    let mut src = ScriptedReads::default();
    src.answers.extend([
        // A: one row, the snapshot's first; B has a row.
        chunk(&[1], false),
        chunk(&[3], false),
        // B: one full chunk and nothing past it; C has a row.
        chunk(&[3, 4], true),
        chunk(&[], false),
        chunk(&[5], false),
        // C: a full chunk, more past it, then the final row.
        chunk(&[5, 6], true),
        chunk(&[7], false),
        chunk(&[7], false),
    ]);
    let steps: Vec<Vec<ChangeEvent>> = (0..4).map(|i| step(&mut s, &mut src, 100 + i).1).collect();
    let all: Vec<&[ChangeEvent]> = steps.iter().map(Vec::as_slice).collect();
    assert_eq!(
        markers(&all),
        [
            "first",
            "first_in_data_collection",
            "last_in_data_collection",
            "first_in_data_collection",
            "true",
            "last"
        ]
    );
    assert!(s.finished());
}

#[test]
fn the_last_row_before_only_empty_tables_is_marked_last_issue33() {
    let mut s = snapshotter(&["A", "B", "C"], 2);
    let mut src = ScriptedReads::default();
    src.answers
        .extend([chunk(&[1, 2], false), chunk(&[], false), chunk(&[], false)]);
    let (_, rows) = step(&mut s, &mut src, 100);
    assert_eq!(markers(&[&rows]), ["first", "last"]);
    assert_eq!(
        src.asked[1..],
        [(name("B"), 100, None, 1), (name("C"), 100, None, 1)]
    );
    assert!(s.finished(), "the empty tables are done with A's end");
    assert_eq!(
        notice_messages(&mut s),
        [
            "APP.A: snapshot complete, 2 rows",
            "APP.B: snapshot complete, 0 rows",
            "APP.C: snapshot complete, 0 rows"
        ]
    );
}

#[test]
fn incremental_marks_every_row_and_reads_nothing_past_a_chunk_issue33() {
    let mut s = snapshotter(&["A", "B"], 2);
    s.config.marks = SnapshotMarks::Incremental;
    let mut src = ScriptedReads::default();
    src.answers
        .extend([chunk(&[1, 2], true), chunk(&[], false), chunk(&[3], false)]);
    let steps: Vec<Vec<ChangeEvent>> = (0..3).map(|i| step(&mut s, &mut src, 100 + i).1).collect();
    let all: Vec<&[ChangeEvent]> = steps.iter().map(Vec::as_slice).collect();
    assert_eq!(markers(&all), ["incremental"; 3]);
    assert!(src.asked.iter().all(|a| a.3 == 2), "{:?}", src.asked);
    assert!(s.finished());
}

#[test]
fn repeated_ora_01555_halves_the_chunk_and_ora_08103_forgets_the_segments() {
    let mut s = snapshotter(&["A"], 8);
    let mut src = ScriptedReads::default();
    src.answers.extend([
        Err(SourceError::oracle(1555, "snapshot too old")),
        Err(SourceError::oracle(1555, "snapshot too old")),
        Err(SourceError::oracle(8103, "object no longer exists")),
        chunk(&[1], false),
    ]);
    assert_eq!(step(&mut s, &mut src, 10).0, Step::Retry);
    assert_eq!(step(&mut s, &mut src, 11).0, Step::Retry);
    assert_eq!(step(&mut s, &mut src, 12).0, Step::Retry);
    let (done, rows) = step(&mut s, &mut src, 13);
    assert_eq!(
        done,
        Step::Chunk {
            table: name("A"),
            rows: 1
        }
    );
    assert_eq!(rows.len(), 1);
    let limits: Vec<usize> = src.asked.iter().map(|a| a.3).collect();
    assert_eq!(limits, [8, 8, 4, 4]);
    assert_eq!(src.forgotten, [name("A")]);
    let notices = notice_messages(&mut s);
    assert!(notices[0].contains("ORA-01555") && notices[0].contains("8 rows"));
    assert!(notices[1].contains("4 rows"));
    assert!(notices[2].contains("ORA-08103"));
}

#[test]
fn dm8_flashback_version_expired_is_read_again_smaller_and_a_missing_table_stops_alone_issue34() {
    let mut s = snapshotter(&["GONE", "A"], 8);
    let mut src = ScriptedReads::default();
    let expired = || SourceError::Dm {
        code: -9801,
        message: "闪回版本已过期".into(),
    };
    src.answers.extend([
        Err(SourceError::Dm {
            code: -2106,
            message: "无效的表或视图名".into(),
        }),
        Err(expired()),
        Err(expired()),
        chunk(&[1], false),
    ]);
    assert_eq!(step(&mut s, &mut src, 10).0, Step::TableStopped);
    assert_eq!(step(&mut s, &mut src, 11).0, Step::Retry);
    assert_eq!(step(&mut s, &mut src, 12).0, Step::Retry);
    assert!(matches!(step(&mut s, &mut src, 13).0, Step::Chunk { .. }));
    let limits: Vec<usize> = src.asked.iter().map(|a| a.3).collect();
    assert_eq!(limits, [8, 8, 8, 4]);
    let notices = notice_messages(&mut s);
    assert!(
        notices[0].contains("APP.GONE can no longer be read"),
        "{notices:?}"
    );
    assert!(
        notices[1].contains("DM-9801 (flashback version expired) reading chunk 1 of APP.A"),
        "{notices:?}"
    );
}

#[test]
fn a_dropped_table_stops_alone_and_a_lost_connection_asks_to_reconnect() {
    let mut s = snapshotter(&["GONE", "B"], 5);
    let mut src = ScriptedReads::default();
    src.answers.extend([
        Err(SourceError::oracle(942, "table or view does not exist")),
        Err(SourceError::oracle(
            3113,
            "end-of-file on communication channel",
        )),
        chunk(&[4], false),
    ]);
    assert_eq!(step(&mut s, &mut src, 10).0, Step::TableStopped);
    assert_eq!(step(&mut s, &mut src, 11).0, Step::Reconnect);
    assert_eq!(
        step(&mut s, &mut src, 12).0.clone(),
        Step::Chunk {
            table: name("B"),
            rows: 1
        }
    );
    assert!(s.finished());
    assert!(matches!(
        s.progress().tables[0].state,
        TableState::Stopped { .. }
    ));
    assert_eq!(
        src.asked[2].2, None,
        "B is read from its start after the reconnect"
    );
}

#[test]
fn a_chunk_the_output_holds_beyond_the_checkpoint_is_resumed_after_its_last_row() {
    let mut p = SnapshotProgress::new(vec![(name("A"), None)]);
    p.chunks = 3;
    let tail = serde_json::json!({
        "after": {"ID": "41", "NOTE": null},
        "source": {"schema": "APP", "table": "A", "scn": "900", "snapshot_chunk": 4},
        "op": "r"
    });
    let resume = |p: &mut SnapshotProgress| {
        p.account_for_output_tail(
            &tail,
            &["ID".into()],
            &[KeyKind::Number],
            ValueForms::default(),
        )
        .expect("resumable")
    };
    assert_eq!(
        resume(&mut p),
        Some(OutputTail::After(name("A"), vec!["41".to_string()]))
    );
    assert_eq!(p.tables[0].after_key, Some(vec!["41".to_string()]));
    assert_eq!((p.chunks, p.last_scn), (4, 900));
    // A chunk the checkpoint counts already changes nothing.
    let before = p.clone();
    assert_eq!(resume(&mut p), None);
    assert_eq!(p, before);
}

/// Accounts for an output ending at `tail`, a row of a table keyed by a
/// numeric `ID`.
fn resume_by_id(p: &mut SnapshotProgress, tail: &serde_json::Value) -> Option<OutputTail> {
    p.account_for_output_tail(
        tail,
        &["ID".into()],
        &[KeyKind::Number],
        ValueForms::default(),
    )
    .expect("resumable")
}

/// Resumes from an output whose last line is a row of table A, which has
/// no key, read at `scn` in chunk `chunk` and marked `mark` if given.
fn resume_keyless(
    p: &mut SnapshotProgress,
    (scn, chunk): (&str, u64),
    mark: Option<&str>,
) -> Option<OutputTail> {
    let mut source =
        serde_json::json!({"schema": "APP", "table": "A", "scn": scn, "snapshot_chunk": chunk});
    if let Some(mark) = mark {
        source["snapshot"] = mark.into();
    }
    let tail = serde_json::json!({"after": {"NOTE": "x"}, "source": source, "op": "r"});
    p.account_for_output_tail(&tail, &[], &[], ValueForms::default())
        .expect("resumable")
}

/// A run killed after writing the snapshot's `last` row and before its
/// checkpoint: the tables after it were empty at that row's SCN, so a
/// restart must not read them again (rows inserted since would carry a
/// second `last`).
#[test]
fn an_output_ending_at_the_snapshots_last_row_ends_the_snapshot_issue31() {
    let mut p = SnapshotProgress::new(vec![(name("A"), None), (name("B"), None)]);
    p.chunks = 3;
    let tail = serde_json::json!({
        "after": {"ID": "41", "NOTE": null},
        "source": {"schema": "APP", "table": "A", "scn": "900", "snapshot_chunk": 4,
                   "snapshot": "last"},
        "op": "r"
    });
    let resumed = resume_by_id(&mut p, &tail);
    assert_eq!(resumed, Some(OutputTail::Ended(name("A"))));
    assert!(p.tables.iter().all(|t| t.state == TableState::Done));
    assert_eq!((p.chunks, p.last_scn, p.tables[0].chunks), (4, 900, 1));
    assert_eq!(p.current(), None, "nothing left to read");
}

/// A kill inside the snapshot's first chunk, after its first rows were
/// written: the rows read after the restart are not `first` again.
#[test]
fn rows_after_a_cut_first_chunk_are_not_marked_first_again_issue31() {
    let mut s = snapshotter(&["A"], 2);
    let tail = serde_json::json!({
        "after": {"ID": "1", "NOTE": null},
        "source": {"schema": "APP", "table": "A", "scn": "90", "snapshot_chunk": 1,
                   "snapshot": "first"},
        "op": "r"
    });
    resume_by_id(&mut s.progress, &tail);
    let mut src = ScriptedReads::default();
    // A full chunk, and one row past it: the table goes on.
    src.answers
        .extend([chunk(&[2, 3], true), chunk(&[4], false)]);
    let (_, rows) = step(&mut s, &mut src, 100);
    assert_eq!(markers(&[&rows]), ["true", "true"]);
}

/// An output holding part of a chunk past the checkpoint says itself what
/// was sent: a table without a key starts over at the newest SCN, after a
/// truncate positioned past the rows written, not again at the SCN stored
/// for the chunk (where the truncate would sort below them).
#[test]
fn an_output_holding_part_of_a_chunk_is_read_on_at_the_newest_scn_issue31() {
    let mut s = snapshotter(&["A"], 2);
    s.progress.read_at = Some(90);
    let resumed = resume_keyless(&mut s.progress, ("90", 1), Some("first"));
    assert_eq!(resumed, Some(OutputTail::StartsOver(name("A"))));
    assert_eq!(s.progress.read_at, None);
    assert_eq!(s.hold_scn(), None);
    assert_eq!(s.next_read_scn(150, 90), Some(150));
}

/// The last row of a table before the last one ends only that table.
#[test]
fn an_output_ending_at_a_tables_last_row_ends_that_table_only_issue31() {
    let mut p = SnapshotProgress::new(vec![(name("A"), None), (name("B"), None)]);
    let resumed = resume_keyless(&mut p, ("900", 1), Some("last_in_data_collection"));
    assert_eq!(resumed, Some(OutputTail::Ended(name("A"))));
    assert_eq!(p.tables[0].state, TableState::Done);
    assert!(
        !p.tables[0].starts_over,
        "a table read whole does not start over"
    );
    assert_eq!(p.tables[1].state, TableState::Reading);
    assert_eq!(p.current(), Some(1));
}

#[test]
fn a_chunk_of_a_table_without_a_key_cut_by_a_kill_starts_its_read_over_issue33() {
    let mut p = SnapshotProgress::new(vec![(name("A"), None)]);
    p.chunks = 3;
    p.tables[0].after_key = Some(vec!["AAASEQAAMAAAACkAAA".into()]);
    let resumed = resume_keyless(&mut p, ("900", 4), None);
    assert_eq!(resumed, Some(OutputTail::StartsOver(name("A"))));
    let t = &p.tables[0];
    assert_eq!((t.after_key.as_ref(), t.starts_over), (None, true));
    assert_eq!((p.chunks, p.last_scn), (4, 900), "no chunk read below it");
}

#[test]
fn modes_have_the_names_users_know() {
    assert_eq!("initial".parse(), Ok(SnapshotMode::Initial));
    assert_eq!("never".parse(), Ok(SnapshotMode::Never));
    assert_eq!("initial-only".parse(), Ok(SnapshotMode::InitialOnly));
    assert_eq!("when-needed".parse(), Ok(SnapshotMode::WhenNeeded));
    let err = "always".parse::<SnapshotMode>().unwrap_err();
    assert!(err.contains("allowed: initial, never"), "{err}");
}

#[test]
fn binary_columns_are_read_as_bytes_like_the_stream_writes_them() {
    let mut s = snapshotter(&["A"], 5);
    let mut src = ScriptedReads::default();
    src.answers.push_back(Ok(SnapshotChunk {
        columns: vec!["ID".into(), "NOTE".into()],
        rows: vec![vec![Some("1".into()), Some("A5FF".into())]],
        last_key: None,
    }));
    let (_, rows) = step(&mut s, &mut src, 10);
    let after = rows[0].after.as_ref().expect("after image");
    assert_eq!(after.get_field("ID"), Some(Field::Text("1".into())));
    assert_eq!(after.get_field("NOTE"), Some(Field::Binary("a5ff".into())));
    let v: serde_json::Value = serde_json::from_str(&rows[0].to_json_line()).expect("json");
    assert_eq!(v["after"]["NOTE"], "pf8=", "base64 by default");
}

#[test]
fn summary_names_the_table_being_read_and_counts_the_whole_snapshot() {
    let mut p = super::sample_progress();
    assert_eq!(
        p.summary(),
        "table 2 of 3 (1 done), APP.ORDERS: 12000 rows of ~50000 (24%), chunk 2; \
         14000 rows, 3 chunks in all"
    );
    p.tables[1].state = TableState::Done;
    p.tables[2].state = TableState::Stopped {
        message: "dropped".into(),
    };
    assert_eq!(
        p.summary(),
        "finished: 3 table(s), 14000 rows, 3 chunks in all; stopped: APP.AUDIT_TMP"
    );
}

#[test]
fn snapshot_status_line_names_the_table_read_its_share_and_the_rate() {
    let mut p = SnapshotProgress::new(vec![
        (
            TableName {
                owner: "APP".into(),
                table: "A".into(),
            },
            Some(10),
        ),
        (
            TableName {
                owner: "APP".into(),
                table: "B".into(),
            },
            Some(5000),
        ),
    ]);
    p.tables[0].rows = 10;
    p.tables[0].state = TableState::Done;
    p.tables[1].rows = 1000;
    p.tables[1].chunks = 2;
    assert_eq!(
        p.status_line(10, 4.0).as_deref(),
        Some(
            "snapshot: table 2 of 2 (APP.B), 1000 rows of about 5000 in 2 chunks; \
             1010 rows in all, 250 rows/s"
        )
    );
    p.tables[1].state = TableState::Stopped {
        message: "dropped".into(),
    };
    assert_eq!(p.status_line(0, 1.0), None);
}

/// The stream gate and held chunks (issue 33).
mod gate {
    use super::*;
    use crate::engine::event::Image;

    fn keyed(tables: &[&str], chunk_rows: usize) -> Snapshotter {
        let mut s = snapshotter(tables, chunk_rows);
        s.config.keys = tables
            .iter()
            .map(|t| {
                let key = SnapshotKey {
                    columns: vec!["ID".into()],
                    kinds: vec![KeyKind::Number],
                };
                (name(t), key)
            })
            .collect();
        s
    }

    fn image(id: &str) -> Image {
        Image::from(vec![
            ("ID".to_string(), Field::text(id)),
            ("NOTE".to_string(), Field::text("x")),
        ])
    }

    fn change(table: &str, op: Op, before: Option<&str>, after: Option<&str>) -> CapturedEvent {
        CapturedEvent::Change(ChangeEvent {
            op,
            before: before.map(image),
            after: after.map(image),
            source: SourcePosition {
                schema: "APP".into(),
                table: table.into(),
                commit_scn: 150,
                ..SourcePosition::default()
            },
            snapshot: SnapshotMark::Stream,
            partial: false,
            commit_ts_ms: 0,
            index: 0,
            table_order: 1,
        })
    }

    fn admitted(
        s: &mut Snapshotter,
        e: CapturedEvent,
    ) -> Option<(Op, Option<Image>, Option<Image>)> {
        match s.admit(e) {
            Some(CapturedEvent::Change(c)) => Some((c.op, c.before, c.after)),
            _ => None,
        }
    }

    fn release(s: &mut Snapshotter, at: Scn) -> Option<Step> {
        s.release(at, &mut |_| Ok(())).expect("release")
    }

    #[test]
    fn a_change_of_a_key_whose_chunk_is_not_emitted_is_left_to_the_read_issue33() {
        let mut s = keyed(&["A"], 2);
        let mut src = ScriptedReads::default();
        src.answers
            .extend([chunk(&[1, 2], true), chunk(&[3], false)]);
        s.read(&mut src, 100, 0).expect("read");
        // Held, not emitted: its keys and every later one are unread.
        assert_eq!(
            admitted(&mut s, change("A", Op::Create, None, Some("1"))),
            None
        );
        assert_eq!(
            admitted(&mut s, change("A", Op::Delete, Some("9"), None)),
            None
        );
        assert!(release(&mut s, 100).is_some());
        // Key 2 was read: its change goes through; key 3 is still to come.
        let u = admitted(&mut s, change("A", Op::Update, Some("2"), Some("2")));
        assert_eq!(u.map(|c| c.0), Some(Op::Update));
        assert_eq!(
            admitted(&mut s, change("A", Op::Update, Some("3"), Some("3"))),
            None
        );
        assert_eq!(s.folded(), 3);
    }

    /// The SCN a chunk was read at is in the progress a checkpoint stores
    /// until its rows are emitted: a restart holds the stream there and
    /// reads the chunk again at that SCN, not at the newest.
    #[test]
    fn a_restart_reads_the_chunk_not_emitted_again_at_the_scn_it_was_read_at_issue31() {
        let mut s = keyed(&["A"], 2);
        let mut src = ScriptedReads::default();
        // Each full chunk, then the one-row probe past it.
        src.answers
            .extend([chunk(&[1, 2], true), chunk(&[3], false)]);
        s.read(&mut src, 120, 0).expect("read");
        let stored = s.progress().clone();
        assert_eq!(stored.read_at, Some(120));
        let mut restarted = keyed(&["A"], 2);
        restarted.progress = stored;
        assert_eq!(restarted.hold_scn(), Some(120), "the stream waits there");
        assert_eq!(restarted.next_read_scn(150, 100), Some(120));
        src.answers
            .extend([chunk(&[1, 2], true), chunk(&[3], false)]);
        restarted.read(&mut src, 120, 0).expect("read");
        assert_eq!(src.asked[2].1, 120);
        release(&mut restarted, 120);
        assert_eq!(restarted.progress().read_at, None);
        assert_eq!(restarted.hold_scn(), None);
        assert_eq!(restarted.next_read_scn(150, 100), Some(150));
    }

    /// Where the SCN a restart was to read at can no longer be read at
    /// (its undo is gone, or the output ends past it), the chunk is read
    /// at the newest SCN and the stream is no longer held.
    #[test]
    fn a_restart_that_cannot_read_at_the_stored_scn_reads_at_the_newest_issue31() {
        let mut s = keyed(&["A"], 2);
        s.progress.read_at = Some(120);
        let mut src = ScriptedReads::default();
        src.answers
            .push_back(Err(SourceError::oracle(1555, "snapshot too old")));
        assert_eq!(s.read(&mut src, 120, 0).expect("read"), Step::Retry);
        assert_eq!((s.progress().read_at, s.hold_scn()), (None, None));
        assert_eq!(s.next_read_scn(150, 100), Some(150));
        let mut behind_the_output = keyed(&["A"], 2);
        behind_the_output.progress.read_at = Some(120);
        assert_eq!(behind_the_output.next_read_scn(150, 130), Some(150));
        assert_eq!(behind_the_output.hold_scn(), None);
    }

    /// A snapshotter resumed from a checkpoint that stored `read_at`,
    /// whose read there fails as undo gone does.
    fn resumed_where_undo_is_gone(read_at: Scn) -> Snapshotter {
        let mut p = SnapshotProgress::new(vec![(name("A"), None)]);
        p.read_at = Some(read_at);
        let mut s = Snapshotter::new(p, keyed(&["A"], 2).config.clone());
        let mut src = ScriptedReads::default();
        src.answers
            .push_back(Err(SourceError::oracle(1555, "snapshot too old")));
        let at = s.next_read_scn(200, 0).expect("readable");
        assert_eq!(s.read(&mut src, at, 0).expect("read"), Step::Retry);
        s
    }

    /// A chunk a crash may have sent part of, which cannot be read again
    /// at its SCN, is read at a newer one: the deletes of keys not read yet
    /// committed after the first SCN then go through (and an update that
    /// moves such a key, as the delete of the old key), so a consumer that
    /// saw the rows sent keeps none deleted since.
    #[test]
    fn a_resumed_read_that_cannot_be_made_again_lets_later_deletes_through_issue31() {
        let mut s = resumed_where_undo_is_gone(120);
        assert_eq!(s.progress().tables[0].deletes_since, Some(120));
        let deleted = admitted(&mut s, change("A", Op::Delete, Some("7"), None));
        assert_eq!(deleted.map(|c| c.0), Some(Op::Delete));
        let moved = admitted(&mut s, change("A", Op::Update, Some("7"), Some("8")));
        assert_eq!(moved, Some((Op::Delete, Some(image("7")), None)));
        assert_eq!(
            admitted(&mut s, change("A", Op::Update, Some("7"), Some("7"))),
            None,
            "an update in place is the read's"
        );
        assert_eq!(
            admitted(&mut s, change("A", Op::Create, None, Some("9"))),
            None
        );
        // Committed at or below that SCN: inside the rows sent.
        let mut at_150 = resumed_where_undo_is_gone(150);
        assert_eq!(
            admitted(&mut at_150, change("A", Op::Delete, Some("7"), None)),
            None
        );
    }

    /// Two reads held at two SCNs are emitted one SCN at a time, so the
    /// second SCN is stored by a commit before its rows are sent.
    #[test]
    fn held_reads_at_two_scns_are_released_one_scn_at_a_time_issue31() {
        let mut s = keyed(&["A"], 1);
        let mut src = ScriptedReads::default();
        let probe = || chunk(&[9], false);
        src.answers
            .extend([chunk(&[1], true), probe(), chunk(&[2], true), probe()]);
        let first = s.orders(100, 1);
        let answers = first.into_iter().map(|o| o.carry_out(&mut src)).collect();
        s.complete(answers, 0).expect("first");
        let second = s.orders(110, 1);
        let answers = second.into_iter().map(|o| o.carry_out(&mut src)).collect();
        s.complete(answers, 0).expect("second");
        assert_eq!(s.progress().read_at, Some(100));
        assert!(release(&mut s, 200).is_some());
        assert_eq!(s.progress().tables[0].after_key, Some(vec!["1".into()]));
        assert_eq!(s.progress().read_at, Some(110));
        assert!(release(&mut s, 200).is_some());
        assert_eq!(s.progress().read_at, None);
    }

    #[test]
    fn a_held_chunk_is_emitted_only_once_the_stream_reached_its_scn_issue33() {
        let mut s = keyed(&["A"], 2);
        let mut src = ScriptedReads::default();
        src.answers
            .extend([chunk(&[1, 2], true), chunk(&[3], false)]);
        s.read(&mut src, 120, 0).expect("read");
        assert_eq!(s.held_scn(), Some(120));
        assert_eq!(release(&mut s, 119), None);
        assert_eq!(s.progress().tables[0].rows, 0, "nothing counted while held");
        assert_eq!(
            release(&mut s, 120),
            Some(Step::Chunk {
                table: name("A"),
                rows: 2
            })
        );
        assert_eq!(s.held_scn(), None);
        assert_eq!(s.progress().tables[0].after_key, Some(vec!["2".into()]));
        assert_eq!(s.progress().last_scn, 120);
    }

    #[test]
    fn an_update_moving_a_key_across_the_read_frontier_keeps_the_read_side_issue33() {
        let mut s = keyed(&["A"], 2);
        let mut src = ScriptedReads::default();
        src.answers
            .extend([chunk(&[1, 2], true), chunk(&[3], false)]);
        s.read(&mut src, 100, 0).expect("read");
        release(&mut s, 100);
        let out = admitted(&mut s, change("A", Op::Update, Some("1"), Some("9")));
        assert_eq!(out, Some((Op::Delete, Some(image("1")), None)));
        let into = admitted(&mut s, change("A", Op::Update, Some("9"), Some("1")));
        assert_eq!(into, Some((Op::Create, None, Some(image("1")))));
    }

    /// An extended ROWID in data object `objd`, block `block`.
    fn rowid(objd: u64, block: u64) -> String {
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let digits = |mut v: u64, n: usize| {
            let mut d = vec![b'A'; n];
            for slot in d.iter_mut().rev() {
                *slot = B64[(v % 64) as usize];
                v /= 64;
            }
            String::from_utf8(d).expect("ascii")
        };
        format!("{}{}{}AAA", digits(objd, 6), digits(4, 3), digits(block, 6))
    }

    fn rowid_chunk(rows: &[u64], objd: u64, more: bool) -> Result<SnapshotChunk, SourceError> {
        Ok(SnapshotChunk {
            columns: vec!["ID".into(), "NOTE".into()],
            rows: rows
                .iter()
                .map(|k| vec![Some(k.to_string()), None])
                .collect(),
            last_key: more.then(|| vec![rowid(objd, rows.last().copied().unwrap_or(0))]),
        })
    }

    fn at_rowid(e: CapturedEvent, row_id: String) -> CapturedEvent {
        match e {
            CapturedEvent::Change(mut c) => {
                c.source.row_id = Some(row_id);
                CapturedEvent::Change(c)
            }
            other => other,
        }
    }

    #[test]
    fn a_change_of_a_table_without_a_key_is_placed_by_its_rowid_issue33() {
        let mut s = snapshotter(&["A"], 2);
        let mut src = ScriptedReads::default();
        // Rows 1 and 2 sit in blocks 1 and 2 of segment 70.
        src.answers
            .extend([rowid_chunk(&[1, 2], 70, true), rowid_chunk(&[3], 70, false)]);
        let insert = |r: String| at_rowid(change("A", Op::Create, None, Some("9")), r);
        assert!(
            admitted(&mut s, insert(rowid(70, 1))).is_none(),
            "nothing read yet: the read holds it"
        );
        s.read(&mut src, 100, 0).expect("read");
        release(&mut s, 100);
        assert!(admitted(&mut s, insert(rowid(70, 2))).is_some(), "read");
        assert!(admitted(&mut s, insert(rowid(70, 3))).is_none(), "unread");
        assert!(
            admitted(&mut s, insert(rowid(71, 1))).is_none(),
            "a later segment"
        );
        assert!(
            admitted(&mut s, change("A", Op::Create, None, Some("9"))).is_some(),
            "no ROWID: through, never lost"
        );
        assert_eq!(s.folded(), 3);
    }

    #[test]
    fn a_segment_replaced_behind_a_rowid_read_starts_it_over_after_a_truncate_issue33() {
        // Segment 80, ahead of the read, is replaced: fresh extents only.
        let mut s = snapshotter(&["A"], 2);
        let mut src = ScriptedReads::default();
        src.answers.extend([
            rowid_chunk(&[1, 2], 70, true),
            rowid_chunk(&[3], 70, false),
            rowid_chunk(&[3], 70, false),
        ]);
        src.segments.extend([vec![70, 80], vec![70, 85]]);
        assert_eq!(step(&mut s, &mut src, 100).1.len(), 2);
        assert_eq!(step(&mut s, &mut src, 101).1.len(), 1);
        assert_eq!(src.forgotten, [name("A")]);
        assert_eq!(src.asked[2].2, Some(vec![rowid(70, 2)]), "the read goes on");
        assert!(s.finished());
        // Segment 70, which the read is in, is moved to 90.
        let mut s2 = snapshotter(&["A"], 2);
        let mut src2 = ScriptedReads::default();
        src2.answers.extend([
            rowid_chunk(&[1, 2], 70, true),
            rowid_chunk(&[3], 70, false),
            rowid_chunk(&[1, 2], 90, true),
            rowid_chunk(&[3], 90, false),
        ]);
        src2.segments.extend([vec![70], vec![90]]);
        step(&mut s2, &mut src2, 100);
        let (_, again) = step(&mut s2, &mut src2, 105);
        let ops: Vec<&str> = again.iter().map(|e| e.op.code()).collect();
        assert_eq!(
            ops,
            ["t", "r", "r"],
            "a truncate, then the table from its start"
        );
        assert_eq!(src2.asked[2], (name("A"), 105, None, 2));
        assert_eq!(src2.forgotten, [name("A")]);
        assert_eq!(
            s2.progress().tables[0].rows,
            4,
            "rows read, the truncate not counted"
        );
        assert!(!s2.progress().tables[0].starts_over);
        let notices = notice_messages(&mut s2);
        assert!(
            notices
                .iter()
                .any(|n| n.contains("data object id 70") && n.contains("starts over")),
            "{notices:?}"
        );
    }

    #[test]
    fn changes_of_tables_without_a_key_or_done_or_unknown_go_through() {
        let mut s = keyed(&["A"], 2);
        s.config.keys.clear();
        assert!(admitted(&mut s, change("A", Op::Create, None, Some("5"))).is_some());
        let mut s = keyed(&["A"], 2);
        let mut src = ScriptedReads::default();
        src.answers.extend([chunk(&[1], false)]);
        s.read(&mut src, 100, 0).expect("read");
        release(&mut s, 100);
        assert!(s.finished());
        assert!(admitted(&mut s, change("A", Op::Create, None, Some("5"))).is_some());
        assert!(admitted(&mut s, change("OTHER", Op::Create, None, Some("5"))).is_some());
        // A key the image lacks cannot be placed: kept, never lost.
        let mut s = keyed(&["A"], 2);
        let e = change("A", Op::Create, None, None);
        assert!(admitted(&mut s, e).is_some());
        assert_eq!(s.folded(), 0);
    }

    #[test]
    fn a_chunk_cut_by_ora_01555_grows_back_after_reads_that_succeed_issue33() {
        // No look past a full chunk: only the chunks' own reads.
        let mut s = keyed(&["A", "B"], 8);
        s.config.marks = SnapshotMarks::Incremental;
        let mut src = ScriptedReads::default();
        src.answers.extend([
            Err(SourceError::oracle(1555, "snapshot too old")),
            Err(SourceError::oracle(1555, "snapshot too old")),
            Err(SourceError::oracle(1555, "snapshot too old")),
            chunk(&[1, 2], true),
            chunk(&[3, 4, 5, 6], true),
            chunk(&[7, 8, 9, 10, 11, 12, 13, 14], true),
        ]);
        for scn in [10, 11, 12, 13, 14, 15] {
            step(&mut s, &mut src, scn);
        }
        let limits: Vec<usize> = src.asked.iter().map(|a| a.3).collect();
        // Halved twice (8, 8, 4, then 2), then doubled after each success.
        assert_eq!(&limits[..6], [8, 8, 4, 2, 4, 8]);
    }
}

#[test]
fn ora_01466_rereads_the_chunk_after_the_ddl_instead_of_reconnecting_issue33() {
    let mut s = snapshotter(&["A"], 8);
    let mut src = ScriptedReads::default();
    src.answers.extend([
        Err(SourceError::oracle(1466, "table definition has changed")),
        chunk(&[1], false),
    ]);
    assert_eq!(step(&mut s, &mut src, 10).0, Step::Retry);
    assert_eq!(src.forgotten, [name("A")]);
    let notices = notice_messages(&mut s);
    assert!(notices[0].contains("ORA-01466"), "{notices:?}");
    assert_eq!(step(&mut s, &mut src, 11).1.len(), 1);
}

fn notice_messages(s: &mut Snapshotter) -> Vec<String> {
    s.take_notices()
        .iter()
        .map(SnapshotNotice::message)
        .collect()
}
