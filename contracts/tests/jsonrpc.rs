//! A JSON-RPC 2.0 envelope as a typed frame (the schema is the fixture
//! `contracts-codegen/tests/fixtures/pass-jsonrpc`): `id` of any type held owned beside the
//! key `method`, `params` optional and read as `{}` by the table when absent. The one-pass
//! typed read gives the verdict and the message of the two stages (the owned struct, then the
//! table's parse) on every line, and the typed union `JSONRPCMessageTyped` those of the owned
//! union and then the table of the variant it picked. The open frames (`OpenRequest`,
//! `LabelledRequest`, `OpenMessage`: `..: T`, as MCP's and ACP's envelopes) keep every other
//! key in their view and typed form, and write back what they read.

mod rpc {
    contracts::protocol! { name: "jsonrpc", dir: "../contracts-codegen/tests/fixtures/pass-jsonrpc/schema" }
}

use contracts::wire::{self, ByName, Refused, TableError};
use rpc::*;

/// A verdict as the two stages give it: `Ok` with the entry's name, or the stage and message.
type Verdict = Result<String, (&'static str, String)>;

/// The table's refusal, an unknown name worded as TypeScript words it.
fn table_error(e: &TableError) -> (&'static str, String) {
    match e {
        TableError::UnknownName(name) => ("table", contracts::verdict::no_table_entry(name)),
        e => ("table", e.to_string()),
    }
}

/// The two stages on a request frame: the owned struct, then its `params` (or `{}`) by name.
fn request_in_two_stages(text: &str) -> Verdict {
    let frame = wire::from_str::<JSONRPCRequest>(text).map_err(|e| ("envelope", e.to_string()))?;
    let params = frame.params.as_ref().map_or("{}", |p| p.0.get());
    RequestPayload::parse(&frame.method, params)
        .map(|p| p.name().to_owned())
        .map_err(|e| table_error(&e))
}

fn request_typed(text: &str) -> Verdict {
    match wire::from_str_typed::<JSONRPCRequestTyped<'_>>(text) {
        Ok(t) => {
            assert_eq!(t.params.name(), &*t.method, "{text}");
            Ok(t.params.name().to_owned())
        }
        Err(Refused::Envelope(e)) => Err(("envelope", e.to_string())),
        Err(Refused::Table(_, e)) => Err(table_error(&e)),
    }
}

/// The two stages on any message: the owned union, then a request's or a notification's
/// `params` by name.
fn message_in_two_stages(text: &str) -> Verdict {
    let m = wire::from_str::<JSONRPCMessage>(text).map_err(|e| ("envelope", e.to_string()))?;
    let by_name = |method: &str, params: &Option<wire::RawJson>, requests: bool| {
        let params = params.as_ref().map_or("{}", |p| p.0.get());
        if requests {
            RequestPayload::parse(method, params).map(|p| format!("request {}", p.name()))
        } else {
            EventPayload::parse(method, params).map(|p| format!("event {}", p.name()))
        }
        .map_err(|e| table_error(&e))
    };
    match m {
        JSONRPCMessage::JSONRPCRequest(r) => by_name(&r.method, &r.params, true),
        JSONRPCMessage::JSONRPCNotification(n) => by_name(&n.method, &n.params, false),
        JSONRPCMessage::JSONRPCResultResponse(_) => Ok("result".into()),
        JSONRPCMessage::JSONRPCErrorResponse(_) => Ok("error".into()),
    }
}

fn message_typed(text: &str) -> Verdict {
    match wire::from_str_variants_typed::<JSONRPCMessageTyped<'_>>(text) {
        Ok(JSONRPCMessageTyped::JSONRPCRequest(r)) => Ok(format!("request {}", r.params.name())),
        Ok(JSONRPCMessageTyped::JSONRPCNotification(n)) => Ok(format!("event {}", n.params.name())),
        Ok(JSONRPCMessageTyped::JSONRPCResultResponse(_)) => Ok("result".into()),
        Ok(JSONRPCMessageTyped::JSONRPCErrorResponse(_)) => Ok("error".into()),
        Err(Refused::Envelope(e)) => Err(("envelope", e.to_string())),
        Err(Refused::Table(_, e)) => Err(table_error(&e)),
    }
}

/// The two stages on an open request frame (`OpenRequest`, `..: unknown`).
fn open_request_in_two_stages(text: &str) -> Verdict {
    let frame = wire::from_str::<OpenRequest>(text).map_err(|e| ("envelope", e.to_string()))?;
    let params = frame.params.as_ref().map_or("{}", |p| p.0.get());
    RequestPayload::parse(&frame.method, params)
        .map(|p| p.name().to_owned())
        .map_err(|e| table_error(&e))
}

fn open_request_typed(text: &str) -> Verdict {
    match wire::from_str_typed::<OpenRequestTyped<'_>>(text) {
        Ok(t) => {
            assert_eq!(t.params.name(), &*t.method, "{text}");
            // The rest is the owned struct's.
            let owned = wire::from_str::<OpenRequest>(text).unwrap();
            assert_eq!(t.extra, owned.extra, "{text}");
            Ok(t.params.name().to_owned())
        }
        Err(Refused::Envelope(e)) => Err(("envelope", e.to_string())),
        Err(Refused::Table(view, e)) => {
            let owned = wire::from_str::<OpenRequest>(text).unwrap();
            assert_eq!(view.extra, owned.extra, "{text}");
            Err(table_error(&e))
        }
    }
}

/// The two stages on a request frame whose rest is typed (`LabelledRequest`, `..: string(max = 8)`).
fn labelled_in_two_stages(text: &str) -> Verdict {
    let frame = wire::from_str::<LabelledRequest>(text).map_err(|e| ("envelope", e.to_string()))?;
    let params = frame.params.as_ref().map_or("{}", |p| p.0.get());
    RequestPayload::parse(&frame.method, params)
        .map(|p| p.name().to_owned())
        .map_err(|e| table_error(&e))
}

fn labelled_typed(text: &str) -> Verdict {
    match wire::from_str_typed::<LabelledRequestTyped<'_>>(text) {
        Ok(t) => {
            let owned = wire::from_str::<LabelledRequest>(text).unwrap();
            assert_eq!(t.extra, owned.extra, "{text}");
            Ok(t.params.name().to_owned())
        }
        Err(Refused::Envelope(e)) => Err(("envelope", e.to_string())),
        Err(Refused::Table(_, e)) => Err(table_error(&e)),
    }
}

/// The two stages on any message of the open union (`OpenMessage`).
fn open_message_in_two_stages(text: &str) -> Verdict {
    let m = wire::from_str::<OpenMessage>(text).map_err(|e| ("envelope", e.to_string()))?;
    let by_name = |method: &str, params: &Option<wire::RawJson>, requests: bool| {
        let params = params.as_ref().map_or("{}", |p| p.0.get());
        if requests {
            RequestPayload::parse(method, params).map(|p| format!("request {}", p.name()))
        } else {
            EventPayload::parse(method, params).map(|p| format!("event {}", p.name()))
        }
        .map_err(|e| table_error(&e))
    };
    match m {
        OpenMessage::OpenRequest(r) => by_name(&r.method, &r.params, true),
        OpenMessage::OpenNotification(n) => by_name(&n.method, &n.params, false),
        OpenMessage::JSONRPCResultResponse(_) => Ok("result".into()),
        OpenMessage::JSONRPCErrorResponse(_) => Ok("error".into()),
    }
}

fn open_message_typed(text: &str) -> Verdict {
    match wire::from_str_variants_typed::<OpenMessageTyped<'_>>(text) {
        Ok(OpenMessageTyped::OpenRequest(r)) => Ok(format!("request {}", r.params.name())),
        Ok(OpenMessageTyped::OpenNotification(n)) => Ok(format!("event {}", n.params.name())),
        Ok(OpenMessageTyped::JSONRPCResultResponse(_)) => Ok("result".into()),
        Ok(OpenMessageTyped::JSONRPCErrorResponse(_)) => Ok("error".into()),
        Err(Refused::Envelope(e)) => Err(("envelope", e.to_string())),
        Err(Refused::Table(_, e)) => Err(table_error(&e)),
    }
}

/// Frames with keys of their own beside the envelope's (any JSON-RPC peer may add one; MCP's
/// and ACP's official schemas accept them): before, between and after the fields, repeated,
/// of every JSON type, and a key a notification keeps that a request would have read as its
/// `id`. A `LabelledRequest` takes only short strings there.
const EXTRA: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":1}"#,
    r#"{"x":{"deep":[1,2.5,null]},"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":"a","b":"s","method":"tools/call","params":{"name":"t"},"a":true}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":1,"x":"again"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":"label","y":"ok"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":"far too long a label"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":1,"x":"short"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"nope","x":"short"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3},"x":"short"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","x":2}"#,
    r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping","x":1}"#,
    r#"{"jsonrpc":"2.0","id":{"x":1},"method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized","_meta":{"a":1}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":50},"x":[]}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","x":null}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{},"x":1}"#,
    r#"{"jsonrpc":"2.0","method":7,"x":1}"#,
];

/// Request frames: valid, absent and null params, ids of every wrong type, an unknown method,
/// invalid params, and keys in another order.
const REQUESTS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}"#,
    r#"{"jsonrpc":"2.0","id":-7,"method":"tools/call","params":{"name":"t","arguments":{"x":1}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
    r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":true,"method":"ping","params":{}}"#,
    r#"{"jsonrpc":"2.0","method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"nope","params":{"a":1}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#,
    r#"{"params":{"name":"t"},"method":"tools/call","id":2,"jsonrpc":"2.0"}"#,
    r#"{"params":{"name":3},"method":"tools/call","id":2,"jsonrpc":"2.0"}"#,
    r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
    r#"{"id":1,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"t"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":"1","method":"ping","params":{},"params":null}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
    r#"[1]"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
];

/// Any message: the requests above, and notifications and responses.
const MESSAGES: &[&str] = &[
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":null}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":0.5}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{"x":1},"progress":1}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/nope"}"#,
    r#"{"params":{"progressToken":1,"progress":2},"method":"notifications/progress","jsonrpc":"2.0"}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized","extra":1}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    r#"{"jsonrpc":"2.0","id":"x","result":null}"#,
    r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}"#,
    r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}"#,
    r#"{"jsonrpc":"2.0","error":{"code":"x","message":"parse error"}}"#,
    r#"{"jsonrpc":"2.0"}"#,
    r#"{}"#,
    r#"null"#,
];

#[test]
fn a_request_read_in_one_pass_has_the_two_stages_verdict() {
    for text in REQUESTS {
        assert_eq!(request_typed(text), request_in_two_stages(text), "{text}");
    }
    // What the lines show.
    let ok = |t: &str| request_typed(t).unwrap();
    let refused = |t: &str| request_typed(t).unwrap_err();
    assert_eq!(
        ok(REQUESTS[0]),
        "ping",
        "absent params are `{{}}` to the table"
    );
    assert_eq!(
        refused(REQUESTS[3]).0,
        "table",
        "tools/call needs its params"
    );
    assert_eq!(
        refused(REQUESTS[4]),
        (
            "table",
            "✖ Invalid input: expected object, received null".into()
        ),
        "params: null is present, and the table refuses it"
    );
    for text in &REQUESTS[6..=9] {
        let (stage, message) = refused(text);
        assert_eq!(stage, "envelope", "{text}");
        assert!(message.contains("→ at id"), "{message}");
    }
    assert_eq!(
        refused(REQUESTS[11]),
        ("table", "no table entry is called \"nope\"".into())
    );
    assert_eq!(
        refused(REQUESTS[13]),
        (
            "table",
            "✖ Invalid input: expected string, received number\n  → at name".into()
        )
    );
}

#[test]
fn plain_requests_are_read_in_one_pass() {
    // The decoder's one-pass loop answers (the untagged `RequestId` has no fast reader yet,
    // so the frame's fast reader defers to it), the key before or after the payload.
    for text in [REQUESTS[0], REQUESTS[1], REQUESTS[2], REQUESTS[15]] {
        let once = contracts::__private::read_typed_once::<JSONRPCRequestTyped<'_>>(text);
        assert!(once.is_some(), "{text}");
    }
    for text in [MESSAGES[0], MESSAGES[2], MESSAGES[6]] {
        let once = contracts::__private::read_typed_once::<JSONRPCNotificationTyped<'_>>(text);
        assert!(once.is_some(), "{text}");
    }
    // Not a request's: an extra key, a name read by a payload that was then renamed.
    for text in [REQUESTS[19], REQUESTS[21]] {
        assert!(
            contracts::__private::read_typed_once::<JSONRPCRequestTyped<'_>>(text).is_none(),
            "{text}"
        );
    }
    // The id is the owned union, in the view and the typed form.
    let t = wire::from_str_typed::<JSONRPCRequestTyped<'_>>(REQUESTS[2]).unwrap();
    assert!(matches!(t.id, RequestId::IntId(-7)));
    let view = wire::from_str_ref::<JSONRPCRequestRef<'_>>(REQUESTS[1]).unwrap();
    assert!(matches!(&view.id, RequestId::StringId(s) if s == "a"));
    assert!(view.params.is_some());
    let view = wire::from_str_ref::<JSONRPCRequestRef<'_>>(REQUESTS[0]).unwrap();
    assert!(view.params.is_none());
    // Absent params stay absent in the owned struct: written back, no key is added.
    let owned = view.into_owned();
    assert_eq!(
        serde_json::to_string(&owned).unwrap(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
    );
}

#[test]
fn a_message_read_typed_has_the_unions_verdict_then_the_tables() {
    for text in REQUESTS.iter().chain(MESSAGES) {
        assert_eq!(message_typed(text), message_in_two_stages(text), "{text}");
    }
    assert_eq!(message_typed(REQUESTS[0]).unwrap(), "request ping");
    assert_eq!(
        message_typed(MESSAGES[0]).unwrap(),
        "event notifications/initialized"
    );
    assert_eq!(message_typed(MESSAGES[8]).unwrap(), "result");
    assert_eq!(message_typed(MESSAGES[12]).unwrap(), "error");
    // A request with an id of the wrong type is no request: the union tries on, and a
    // notification (which has no `id` key of its own) accepts it, so the event table refuses
    // `ping`.
    assert_eq!(
        message_typed(REQUESTS[6]),
        Err(("table", "no table entry is called \"ping\"".into()))
    );
}

#[test]
fn an_open_request_read_in_one_pass_has_the_two_stages_verdict() {
    for text in REQUESTS.iter().chain(EXTRA) {
        assert_eq!(
            open_request_typed(text),
            open_request_in_two_stages(text),
            "{text}"
        );
        assert_eq!(labelled_typed(text), labelled_in_two_stages(text), "{text}");
    }
    // The extra keys are kept, in the order read, the last value of a repeated one.
    let t = wire::from_str_typed::<OpenRequestTyped<'_>>(EXTRA[2]).unwrap();
    let keys: Vec<&str> = t.extra.keys().map(String::as_str).collect();
    assert_eq!(keys, ["b", "a"]);
    let t = wire::from_str_typed::<OpenRequestTyped<'_>>(EXTRA[3]).unwrap();
    assert_eq!(t.extra["x"].0.get(), r#""again""#);
    // Read in one pass: an extra key no longer leaves the frame to the two stages.
    for text in [EXTRA[0], EXTRA[1], EXTRA[2]] {
        assert!(
            contracts::__private::read_typed_once::<OpenRequestTyped<'_>>(text).is_some(),
            "{text}"
        );
    }
    // A typed rest: a valid value kept, an invalid one refused by the envelope at its key,
    // with the owned struct's message.
    let t = wire::from_str_typed::<LabelledRequestTyped<'_>>(EXTRA[4]).unwrap();
    assert_eq!(t.extra["y"], "ok");
    let (stage, message) = labelled_typed(EXTRA[5]).unwrap_err();
    assert_eq!(stage, "envelope");
    assert!(message.contains("→ at x"), "{message}");
    assert_eq!(labelled_typed(EXTRA[0]).unwrap_err().0, "envelope");
    assert_eq!(
        labelled_typed(EXTRA[6]).unwrap(),
        "ping",
        "the last value decides"
    );
    // The closed request still drops an extra key.
    let closed = wire::from_str::<JSONRPCRequest>(EXTRA[0]).unwrap();
    assert_eq!(
        serde_json::to_string(&closed).unwrap(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
    );
}

#[test]
fn an_open_message_read_typed_has_the_unions_verdict_then_the_tables() {
    for text in REQUESTS.iter().chain(MESSAGES).chain(EXTRA) {
        assert_eq!(
            open_message_typed(text),
            open_message_in_two_stages(text),
            "{text}"
        );
    }
    assert_eq!(open_message_typed(EXTRA[0]).unwrap(), "request ping");
    assert_eq!(
        open_message_typed(EXTRA[12]).unwrap(),
        "event notifications/initialized"
    );
    // A request refused for its id is read on as a notification, which keeps the `id` in its
    // rest: not in one pass (the union would have tried the request first), by the two stages.
    assert!(
        <OpenMessageTyped<'_> as wire::VariantsTyped<'_>>::read_once(EXTRA[11]).is_none(),
        "{}",
        EXTRA[11]
    );
    match wire::from_str_variants_typed::<OpenMessageTyped<'_>>(EXTRA[11]) {
        Ok(OpenMessageTyped::OpenNotification(n)) => {
            assert_eq!(n.extra["id"].0.get(), r#"{"x":1}"#)
        }
        other => panic!("{other:?}"),
    }
}

/// What the owned types write back is what they read, as JSON: no key dropped, no number
/// respelled, through the owned union and through its view (an open request or notification;
/// the fixture's responses are closed, and drop what they do not know).
#[test]
fn an_open_message_is_written_back_as_it_was_read() {
    let mut accepted = 0;
    for text in REQUESTS.iter().chain(MESSAGES).chain(EXTRA) {
        let Ok(owned) = wire::from_str::<OpenMessage>(text) else {
            continue;
        };
        if !matches!(
            owned,
            OpenMessage::OpenRequest(_) | OpenMessage::OpenNotification(_)
        ) {
            continue;
        }
        accepted += 1;
        let input: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_value(&owned).unwrap(), input, "{text}");
        let view = wire::from_str_ref::<OpenMessageRef<'_>>(text).unwrap();
        assert_eq!(
            serde_json::to_value(view.into_owned()).unwrap(),
            input,
            "{text}"
        );
        if let Ok(OpenMessageTyped::OpenRequest(t)) =
            wire::from_str_variants_typed::<OpenMessageTyped<'_>>(text)
        {
            let OpenMessage::OpenRequest(r) = &owned else {
                panic!("{text}");
            };
            assert_eq!(t.extra, r.extra, "{text}");
        }
    }
    assert!(accepted > 20, "{accepted}");
    // The view carries the rest both ways.
    let owned = wire::from_str::<OpenRequest>(EXTRA[2]).unwrap();
    let view = <OpenRequestRef<'_> as wire::DecodeRef<'_>>::from_owned(owned.clone());
    assert_eq!(view.extra, owned.extra);
    assert_eq!(view.into_owned(), owned);
}

#[test]
fn by_name_reads_an_empty_object_for_an_entry_without_params() {
    let p = <RequestPayload as ByName<'_>>::read_named("ping", "{}").unwrap();
    assert_eq!(p.name(), "ping");
    assert!(contracts::__private::scan_empty_entry::<RequestPayload>("ping").is_some());
    assert!(contracts::__private::scan_empty_entry::<RequestPayload>("tools/call").is_none());
    assert_eq!(contracts::__private::empty_object().get(), "{}");
}

/// Every line's verdict, as `tests/jsonrpc.verdicts.jsonl` records it for Zod to be compared
/// with (`parseJSONRPCRequestTyped` on the requests, `parseJSONRPCMessageTyped` on every line,
/// and the open frames' `parseOpenRequestTyped`, `parseLabelledRequestTyped` and
/// `parseOpenMessageTyped`): `UPDATE_EXPECT=1` rewrites the record.
#[test]
fn the_verdicts_are_recorded() {
    let mut out = String::new();
    let mut push = |as_: &str, text: &str, v: Verdict| {
        let line = match v {
            Ok(_) => serde_json::json!({ "as": as_, "raw": text, "ok": true }),
            Err((stage, message)) => {
                // Text that is not JSON is worded by each language's own parser.
                let message = serde_json::from_str::<serde_json::Value>(text)
                    .is_ok()
                    .then_some(message);
                serde_json::json!({ "as": as_, "raw": text, "ok": false, "stage": stage, "message": message })
            }
        };
        out.push_str(&line.to_string());
        out.push('\n');
    };
    for text in REQUESTS {
        push("request", text, request_typed(text));
    }
    for text in REQUESTS.iter().chain(MESSAGES) {
        push("message", text, message_typed(text));
    }
    for text in REQUESTS.iter().chain(EXTRA) {
        push("open-request", text, open_request_typed(text));
        push("labelled-request", text, labelled_typed(text));
    }
    for text in REQUESTS.iter().chain(MESSAGES).chain(EXTRA) {
        push("open-message", text, open_message_typed(text));
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jsonrpc.verdicts.jsonl");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &out).unwrap();
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(recorded, out, "UPDATE_EXPECT=1 rewrites {}", path.display());
}
