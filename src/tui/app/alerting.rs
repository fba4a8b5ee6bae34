//! The alerts the screen raises from what the engine reports: findings,
//! source errors and their retries, flagged open transactions, partition
//! DDL and archived logs deleted ahead of the read position.

use std::collections::BTreeMap;

use crate::engine::event::CapturedEvent;
use crate::tui::alerts::{ora_code_of, partition_ddl_action, without_retry_suffix};
use crate::tui::entry::one_line;

use super::{Alert, AlertKind, App};

impl App {
    /// Alerts the changes themselves call for: partition DDL that gives a
    /// segment a new data object id, and the commit of a flagged transaction.
    pub(super) fn alerts_from_events(&mut self, events: &[CapturedEvent]) {
        for event in events {
            let src = event.source();
            self.raising_at =
                chrono::DateTime::from_timestamp_millis(src.change_ts_ms).map(|t| t.naive_utc());
            if let Some(pos) = self.flagged_txns.iter().position(|x| *x == src.xid) {
                let xid = self.flagged_txns.remove(pos);
                // Raised by the commit, not by the transaction's first change.
                let commit_ms = match event {
                    CapturedEvent::Change(c) => c.commit_ts_ms,
                    CapturedEvent::Ddl(d) => d.commit_ts_ms,
                };
                self.raising_at =
                    chrono::DateTime::from_timestamp_millis(commit_ms).map(|t| t.naive_utc());
                self.raise(
                    AlertKind::Finding,
                    "flagged_txn_committed".into(),
                    format!(
                        "transaction {xid}, flagged while open, committed at SCN {}",
                        src.commit_scn
                    ),
                    Some("its changes reach the sink together now; watch the sink's lag".into()),
                    false,
                );
            }
            if let CapturedEvent::Ddl(d) = event {
                if let Some(action) = partition_ddl_action(&d.ddl) {
                    self.raise(
                        AlertKind::Finding,
                        "partition_ddl".into(),
                        format!(
                            "{}.{}: {action} PARTITION {}",
                            src.schema,
                            src.table,
                            if action == "DROP" {
                                "removes a segment"
                            } else {
                                "gives the segment a new data object id"
                            }
                        ),
                        Some(
                            "a snapshot or chunk reading the old segment fails with ORA-08103: \
                             restart that chunk, and run `cdcctl partitions` on the table"
                                .into(),
                        ),
                        false,
                    );
                }
            }
        }
        self.raising_at = None;
    }

    /// A source error the engine reported. The same occurrence may already
    /// be on screen from the status's state; a retry of the same error is
    /// counted on its alert; a stop on an archive gap replaces the alert
    /// that warned those logs were deleted ahead.
    pub(super) fn on_source_error(
        &mut self,
        error: String,
        ora_code: Option<u32>,
        advice: Option<String>,
        retrying: bool,
        gap: Option<(u16, u64, u64)>,
    ) {
        let message = one_line(without_retry_suffix(&error));
        let code = ora_code
            .map(|c| format!("ORA-{c:05}"))
            .or_else(|| ora_code_of(&message))
            .unwrap_or_default();
        if self.state_error.take().as_deref() == Some(message.as_str()) {
            if let Some(a) =
                self.alerts.iter_mut().rev().find(|a| {
                    a.kind == AlertKind::SourceError && a.message == message && !a.resolved
                })
            {
                if a.code.is_empty() {
                    a.code = code;
                }
                if advice.is_some() {
                    a.advice = advice.map(|x| one_line(&x));
                }
                a.retrying = retrying;
            }
        } else {
            self.raise(AlertKind::SourceError, code, message, advice, retrying);
        }
        if let (Some((thread, from, to)), false) = (gap, retrying) {
            let foretold = self
                .reported_missing
                .iter()
                .any(|(t, s)| *t == thread && (from..=to).contains(s));
            if foretold {
                self.alerts.retain(|a| {
                    !(a.kind == AlertKind::Finding && a.code == "archive_deleted_ahead")
                });
            }
        }
    }

    /// Flags the oldest and the largest open transaction once each when
    /// they pass the thresholds.
    pub(super) fn alerts_from_status(&mut self) {
        let age = self.status.oldest_open.as_ref().and_then(|o| {
            Some(
                (self.status.current_time? - o.start_time?)
                    .num_seconds()
                    .max(0),
            )
        });
        let mut flags = Vec::new();
        // Past the age, or younger but holding the window back: every
        // session re-reads the logs it began in.
        let held = self.status.mining.held_logs;
        let holds_back = held >= crate::engine::lag_cause::PINNED_LOGS;
        if let (Some(o), Some(age)) = (&self.status.oldest_open, age) {
            if (age >= self.config.old_txn_s || holds_back) && !self.flagged_txns.contains(&o.xid) {
                let reread = if holds_back {
                    format!("; each session re-reads {held} logs for it")
                } else {
                    String::new()
                };
                flags.push((
                    o.xid.clone(),
                    "old_transaction",
                    format!(
                        "transaction {} open for {} (since SCN {}): the restart SCN cannot move past it{reread}",
                        o.xid,
                        crate::tui::format::duration_s(age as u64),
                        o.start_scn
                    ),
                ));
            }
        }
        if let Some(l) = &self.status.largest_open {
            if l.events >= self.config.big_txn_events
                && !self.flagged_txns.contains(&l.xid)
                && !flags.iter().any(|f| f.0 == l.xid)
            {
                let spill = if l.spilled {
                    format!(", {} spilled to disk", crate::tui::format::bytes(l.bytes))
                } else {
                    format!(", {} in memory", crate::tui::format::bytes(l.bytes))
                };
                flags.push((
                    l.xid.clone(),
                    "large_transaction",
                    format!(
                        "transaction {} holds {} changes{spill}",
                        l.xid,
                        crate::tui::format::thousands(l.events)
                    ),
                ));
            }
        }
        self.alert_missing_archives();
        for (xid, code, message) in flags {
            self.flagged_txns.push(xid);
            self.raise(
                AlertKind::Finding,
                code.into(),
                message,
                Some("press t for its session (USERNAME, PROGRAM, MACHINE) and ask its owner to commit or roll back".into()),
                false,
            );
        }
    }

    /// One alert when archived logs capture still needs disappear ahead of
    /// the read position, raised again only when another one goes.
    fn alert_missing_archives(&mut self) {
        let missing = &self.status.archives_missing_ahead;
        if missing
            .iter()
            .all(|m| self.reported_missing.contains(&(m.thread, m.sequence)))
        {
            return;
        }
        self.reported_missing
            .extend(missing.iter().map(|m| (m.thread, m.sequence)));
        let mut by_thread: BTreeMap<u16, Vec<(u64, &str)>> = BTreeMap::new();
        for m in missing {
            by_thread
                .entry(m.thread)
                .or_default()
                .push((m.sequence, m.state));
        }
        let mining: BTreeMap<u16, u64> = self
            .status
            .logs
            .iter()
            .map(|l| (l.thread, l.sequence))
            .collect();
        let mut parts = Vec::new();
        let mut restore = Vec::new();
        for (thread, seqs) in &by_thread {
            let list: Vec<String> = seqs
                .iter()
                .map(|(s, state)| format!("{s} ({})", state.to_lowercase()))
                .collect();
            let at = mining
                .get(thread)
                .map(|s| format!(", reading sequence {s}"))
                .unwrap_or_default();
            parts.push(format!("thread {thread} sequence {}{at}", list.join(", ")));
            let (lo, hi) = (
                seqs.first().map_or(0, |s| s.0),
                seqs.last().map_or(0, |s| s.0),
            );
            restore.push(format!(
                "RMAN> RESTORE ARCHIVELOG SEQUENCE BETWEEN {lo} AND {hi} THREAD {thread};"
            ));
        }
        self.raise(
            AlertKind::Finding,
            "archive_deleted_ahead".into(),
            format!(
                "archived logs deleted ahead of the read position: {}",
                parts.join("; ")
            ),
            Some(format!(
                "restore them before capture reaches them ({}), or capture stops with ORA-01291",
                restore.join(" ")
            )),
            false,
        );
    }

    pub(super) fn raise(
        &mut self,
        kind: AlertKind,
        code: String,
        message: String,
        advice: Option<String>,
        retrying: bool,
    ) {
        let now = self.now;
        // Driver messages can span lines; an alert is one line plus advice.
        let message = one_line(&message);
        let advice = advice.map(|a| one_line(&a));
        // A source error is one alert whether or not its code was known
        // when it was first seen.
        if let Some(pos) = self.alerts.iter().position(|a| {
            a.kind == kind
                && a.message == message
                && (a.code == code || kind == AlertKind::SourceError)
        }) {
            let mut a = self.alerts.remove(pos);
            a.count += 1;
            a.last_at = now;
            a.retrying = retrying;
            a.resolved = false;
            if advice.is_some() {
                a.advice = advice;
            }
            if a.code.is_empty() {
                a.code = code;
            }
            self.alerts.push(a);
        } else {
            self.alerts.push(Alert {
                kind,
                code,
                message,
                advice,
                count: 1,
                first_at: now,
                last_at: now,
                raised_at: self.raising_at.or(self.status.current_time),
                retrying,
                resolved: false,
            });
        }
        let max = self.config.max_alerts.max(1);
        if self.alerts.len() > max {
            let excess = self.alerts.len() - max;
            self.alerts.drain(..excess);
        }
    }
}
