//! A chat's thread and the reducer that applies `ChatEvent`s to it, shared by the host (which
//! keeps every chat's thread to answer attach and history) and the client (which keeps the
//! threads it attached).
//!
//! The rules are the spec's: `item` inserts or replaces the item with this id, placed by
//! `historyIndex`; `delta` appends text to the item `itemId` (a reply, a thought, or the
//! output of a running tool); `info` replaces the ChatInfo; `reset` replaces the info and the
//! whole thread.

use super::{ChatEvent, ChatInfo, ChatItem, HistoryIndex};

/// A chat's info and items, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Thread {
    pub info: Option<ChatInfo>,
    pub items: Vec<ChatItem>,
}

impl Thread {
    /// A thread from a snapshot (an attach's info and items).
    pub fn from_snapshot(info: ChatInfo, items: Vec<ChatItem>) -> Thread {
        Thread {
            info: Some(info),
            items,
        }
    }

    /// Applies one event. A delta for an item the thread does not hold is dropped: the item
    /// is outside the page the thread holds.
    pub fn apply(&mut self, event: &ChatEvent) {
        match event {
            ChatEvent::Item(e) => self.upsert(e.item.clone()),
            // Searched from the newest: a delta or a replaced item is almost always one of the
            // last (ids are unique, so the direction changes nothing else).
            ChatEvent::Delta(e) => {
                if let Some(item) = self
                    .items
                    .iter_mut()
                    .rev()
                    .find(|i| item_id(i) == e.item_id)
                {
                    append_text(item, &e.text);
                }
            }
            ChatEvent::Info(e) => self.info = Some(ChatInfo::clone(&e.info)),
            ChatEvent::Reset(e) => {
                self.info = Some(ChatInfo::clone(&e.info));
                self.items = e.items.clone();
            }
        }
    }

    /// Inserts or replaces by id; a new item with a historyIndex goes before the first item
    /// with a greater one, any other new item at the end.
    pub fn upsert(&mut self, item: ChatItem) {
        if let Some(slot) = self
            .items
            .iter_mut()
            .rev()
            .find(|i| item_id(i) == item_id(&item))
        {
            *slot = item;
            return;
        }
        let at = match history_index(&item) {
            Some(h) => self
                .items
                .iter()
                .position(|i| history_index(i).is_some_and(|x| x > h))
                .unwrap_or(self.items.len()),
            None => self.items.len(),
        };
        self.items.insert(at, item);
    }

    /// The item with this id.
    pub fn item(&self, id: &str) -> Option<&ChatItem> {
        self.items.iter().rev().find(|i| item_id(i) == id)
    }
}

/// An item's id.
pub fn item_id(item: &ChatItem) -> &str {
    match item {
        ChatItem::User(i) => &i.id,
        ChatItem::Reply(i) => &i.id,
        ChatItem::Thought(i) => &i.id,
        ChatItem::Tool(i) => &i.id,
        ChatItem::Approval(i) => &i.id,
        ChatItem::Question(i) => &i.id,
        ChatItem::Subagent(i) => &i.id,
        ChatItem::Notice(i) => &i.id,
    }
}

/// An item's place in the whole thread, when the host gave one.
pub fn history_index(item: &ChatItem) -> Option<HistoryIndex> {
    match item {
        ChatItem::User(i) => i.history_index,
        ChatItem::Reply(i) => i.history_index,
        ChatItem::Thought(i) => i.history_index,
        ChatItem::Tool(i) => i.history_index,
        ChatItem::Approval(i) => i.history_index,
        ChatItem::Question(i) => i.history_index,
        ChatItem::Subagent(i) => i.history_index,
        ChatItem::Notice(i) => i.history_index,
    }
}

/// Whether the item waits on a person: a pending approval or question.
pub fn is_pending(item: &ChatItem) -> bool {
    match item {
        ChatItem::Approval(a) => a.state == super::ApprovalState::Pending,
        ChatItem::Question(q) => q.state == super::QuestionState::Pending,
        _ => false,
    }
}

/// Appends delta text: to a reply's or a thought's text, to a tool's output. Other items do
/// not grow.
fn append_text(item: &mut ChatItem, text: &str) {
    match item {
        ChatItem::Reply(r) => r.text.push_str(text),
        ChatItem::Thought(t) => t.text.push_str(text),
        ChatItem::Tool(t) => t.output.get_or_insert_with(String::new).push_str(text),
        _ => {}
    }
}
