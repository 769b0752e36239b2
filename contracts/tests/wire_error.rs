//! `WireError`, the error of every `Host` method: `Display` and `std::error::Error`, a
//! constructor per code of the schema's `ErrorCode`, and the conversions that let `?` raise a
//! host's failures as a reply and a reply's error into an application's error.

use contracts::agent::store::StoreError;
use contracts::agent::{ErrorCode, RequestPayload, WireError};
use std::error::Error;

#[test]
fn a_constructor_per_code_sets_the_code_and_the_message() {
    let cases = [
        (WireError::chat_unsupported("m"), ErrorCode::ChatUnsupported),
        (WireError::history_expired("m"), ErrorCode::HistoryExpired),
        (WireError::unreadable_frame("m"), ErrorCode::UnreadableFrame),
        (WireError::unknown_request("m"), ErrorCode::UnknownRequest),
        (WireError::invalid_payload("m"), ErrorCode::InvalidPayload),
        (WireError::unknown_chat("m"), ErrorCode::UnknownChat),
        (WireError::unknown_item("m"), ErrorCode::UnknownItem),
        (WireError::unknown_bookmark("m"), ErrorCode::UnknownBookmark),
        (WireError::unknown_visual("m"), ErrorCode::UnknownVisual),
        (WireError::unknown_account("m"), ErrorCode::UnknownAccount),
        (WireError::unknown_provider("m"), ErrorCode::UnknownProvider),
        (WireError::frame_too_large("m"), ErrorCode::FrameTooLarge),
        (WireError::internal("m"), ErrorCode::Internal),
    ];
    // One constructor per listed code: a code added to the schema without one fails here.
    assert_eq!(cases.len(), ErrorCode::VALUES.len());
    for (error, code) in cases {
        assert_eq!((&error.code, error.message.as_str()), (&code, "m"));
    }
}

#[test]
fn display_shows_the_code_then_the_message() {
    let e = WireError::unknown_chat("no chat is called \"c9\"");
    assert_eq!(e.to_string(), "unknown-chat: no chat is called \"c9\"");
    let other = WireError::new(ErrorCode::Other("app-code".into()), "x");
    assert_eq!(other.to_string(), "app-code: x");
}

/// An application's error wraps a reply's error with `?`, as any `std::error::Error`.
#[test]
fn question_mark_turns_a_reply_error_into_an_applications_error() {
    fn call() -> Result<(), WireError> {
        Err(WireError::unknown_chat("gone"))
    }
    fn boxed() -> Result<(), Box<dyn Error + Send + Sync>> {
        call()?;
        Ok(())
    }
    let e = boxed().unwrap_err();
    assert_eq!(e.to_string(), "unknown-chat: gone");
    let e = e.downcast::<WireError>().expect("the WireError itself");
    assert_eq!(e.code, ErrorCode::UnknownChat);
    assert!(e.source().is_none());
}

/// A host's own failures become `internal` replies with `?`.
#[test]
fn question_mark_turns_a_hosts_failures_into_internal() {
    fn json() -> Result<serde_json::Value, WireError> {
        Ok(serde_json::from_str("{nope")?)
    }
    fn io() -> Result<String, WireError> {
        Ok(std::fs::read_to_string(
            "/nonexistent/contracts-wire-error",
        )?)
    }
    fn store() -> Result<(), WireError> {
        Err(StoreError("disk full".into()))?
    }
    let e = json().unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("key must be a string"), "{}", e.message);
    let e = io().unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("No such file"), "{}", e.message);
    assert_eq!(
        (store().unwrap_err().code, store().unwrap_err().message),
        (ErrorCode::Internal, "disk full".to_owned())
    );
}

/// A payload a host reads by name itself is refused as the dispatcher refuses it.
#[test]
fn question_mark_turns_a_table_refusal_into_the_dispatchers_codes() {
    fn parse(name: &str, json: &str) -> Result<RequestPayload, WireError> {
        Ok(RequestPayload::parse(name, json)?)
    }
    let e = parse("chat.nope", "{}").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            ErrorCode::UnknownRequest,
            "no request is called \"chat.nope\""
        )
    );
    let e = parse("chat.history", "{}").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidPayload);
    assert!(e.message.contains("chatId"), "{}", e.message);
    assert!(parse("chat.list", "{}").is_ok());
}
