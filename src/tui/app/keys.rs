//! What the keyboard does to the screen's state: the modes (filter typing,
//! help, transactions), moving the selection, paging the detail pane and
//! pausing.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{App, Filter, Mode};

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.should_quit = true;
            return;
        }
        match std::mem::replace(&mut self.mode, Mode::Normal) {
            Mode::FilterInput(mut text) => match key.code {
                KeyCode::Enter => {
                    let f = Filter::parse(&text);
                    self.matches = self
                        .ring
                        .iter()
                        .filter(|e| f.matches(e))
                        .map(|e| e.seq)
                        .collect();
                    self.filter = (!f.is_empty()).then_some(f);
                    self.selected = None;
                }
                KeyCode::Esc => {}
                KeyCode::Backspace => {
                    text.pop();
                    self.mode = Mode::FilterInput(text);
                }
                KeyCode::Char(c) => {
                    text.push(c);
                    self.mode = Mode::FilterInput(text);
                }
                _ => self.mode = Mode::FilterInput(text),
            },
            Mode::Transactions => match key.code {
                KeyCode::Char('q') => self.should_quit = true,
                KeyCode::Char('t') | KeyCode::Esc => {}
                _ => self.mode = Mode::Transactions,
            },
            Mode::Help => {
                // Any key closes the help; q also quits.
                if key.code == KeyCode::Char('q') {
                    self.should_quit = true;
                }
            }
            Mode::Normal => self.on_normal_key(key),
        }
    }

    fn on_normal_key(&mut self, key: KeyEvent) {
        let page = self.page_rows() as isize;
        let before = (self.selected, self.show_detail);
        self.on_list_key(key, page);
        if (self.selected, self.show_detail) != before {
            self.detail_scroll = 0;
        }
    }

    fn on_list_key(&mut self, key: KeyEvent, page: isize) {
        let detail_page = (self.size.1 / 3).max(1);
        match key.code {
            KeyCode::Char('q') => self.should_quit = true,
            // Esc steps back (the pane, then the filter) and never quits:
            // one key too many must not end an incident view.
            KeyCode::Esc => {
                if self.show_detail {
                    self.show_detail = false;
                } else if self.filter.take().is_some() {
                    self.matches.clear();
                    self.selected = None;
                }
            }
            KeyCode::Char('p') | KeyCode::Char(' ') => self.toggle_pause(),
            KeyCode::Char('/') => {
                let current = self
                    .filter
                    .as_ref()
                    .map(|f| f.text.clone())
                    .unwrap_or_default();
                self.mode = Mode::FilterInput(current);
            }
            KeyCode::Char('?') => self.mode = Mode::Help,
            KeyCode::Char('t') => self.mode = Mode::Transactions,
            KeyCode::Enter => self.show_detail = !self.show_detail,
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            // With the detail open, paging reads the change: a row wider
            // than the pane must be readable at 80×24.
            KeyCode::PageUp if self.show_detail => {
                self.detail_scroll = self.detail_scroll.saturating_sub(detail_page);
            }
            KeyCode::PageDown if self.show_detail => {
                self.detail_scroll =
                    (self.detail_scroll + detail_page).min(self.detail_overflow.get());
            }
            KeyCode::PageUp => self.move_by(-page),
            KeyCode::PageDown => self.move_by(page),
            KeyCode::Home | KeyCode::Char('g') => self.move_to_first(),
            KeyCode::End | KeyCode::Char('G') => self.selected = None,
            _ => {}
        }
    }

    fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        if !self.paused {
            for entry in std::mem::take(&mut self.pending) {
                self.admit(entry);
            }
            self.trim_ring();
        }
    }

    /// Rows a page of the list scrolls by.
    fn page_rows(&self) -> usize {
        (self.size.1 as usize).saturating_sub(18).max(1)
    }

    fn move_by(&mut self, delta: isize) {
        let visible = self.visible();
        let Some(i) = self.selected_index(&visible) else {
            return;
        };
        let last = visible.len() - 1;
        let j = (i as isize + delta).clamp(0, last as isize) as usize;
        self.selected = if j == last && delta > 0 {
            None
        } else {
            Some(visible[j].seq)
        };
    }

    fn move_to_first(&mut self) {
        let first = self.visible().first().map(|e| e.seq);
        if first.is_some() {
            self.selected = first;
        }
    }
}
