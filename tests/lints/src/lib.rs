//! A protocol generated in a crate with strict lints: it denies missing docs and unsafe code and
//! warns on `clippy::pedantic` (workspace clippy runs with `-D warnings`), with the allow-list
//! apps commonly set. Generated code must add no warning of its own.

#![deny(missing_docs, unsafe_code)]
#![warn(clippy::pedantic)]
#![allow(clippy::module_name_repetitions, clippy::must_use_candidate)]

/// The protocol: every kind of type the schema language has, documented.
pub mod tasks {
    contracts::protocol! { name: "tasks", dir: "schema" }
}

#[cfg(test)]
mod tests {
    use super::tasks;

    #[test]
    fn the_generated_tables_work() {
        let ok = tasks::RequestPayload::parse("task.get", r#"{"id":"t1"}"#);
        assert!(ok.is_ok(), "{ok:?}");
        assert!(tasks::RequestPayload::parse("task.get", r#"{"id":""}"#).is_err());
        let task = tasks::Task::new("t1", "write", tasks::State::Todo).priority(3);
        assert_eq!(task.priority, Some(3));
        let attached = tasks::AttachPayload::new("t1", tasks::Note::new("hello"));
        assert!(matches!(attached.attachment, tasks::Attachment::Note(_)));
    }
}
