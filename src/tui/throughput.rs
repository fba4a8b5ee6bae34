//! Events per second over a window of whole seconds, for the rate panel.

use std::collections::VecDeque;
use std::time::Duration;

/// Events per second over the last N whole seconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Throughput {
    capacity: usize,
    history: VecDeque<u64>,
    current: u64,
    current_sec: u64,
}

impl Throughput {
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            history: VecDeque::new(),
            current: 0,
            current_sec: 0,
        }
    }

    pub(super) fn record(&mut self, n: u64) {
        self.current = self.current.saturating_add(n);
    }

    pub(super) fn advance(&mut self, now: Duration) {
        let sec = now.as_secs();
        if sec <= self.current_sec {
            return;
        }
        let gap = sec - self.current_sec;
        self.history.push_back(std::mem::take(&mut self.current));
        // Seconds without any event still count as zero.
        let zeros = (gap - 1).min(self.capacity as u64);
        for _ in 0..zeros {
            self.history.push_back(0);
        }
        while self.history.len() > self.capacity {
            self.history.pop_front();
        }
        self.current_sec = sec;
    }

    /// Complete seconds, oldest first.
    pub fn history(&self) -> &VecDeque<u64> {
        &self.history
    }

    /// Events in the last complete second.
    pub fn last(&self) -> u64 {
        self.history.back().copied().unwrap_or(0)
    }

    /// Highest second in the history.
    pub fn peak(&self) -> u64 {
        self.history.iter().copied().max().unwrap_or(0)
    }

    /// Mean over the last `n` complete seconds.
    pub fn average(&self, n: usize) -> u64 {
        let n = n.min(self.history.len());
        if n == 0 {
            return 0;
        }
        self.history.iter().rev().take(n).sum::<u64>() / n as u64
    }
}
