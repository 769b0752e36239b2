//! A protocol whose tables have two sides (`tests/two_sided`): the host answers only the
//! requests a client sends and the client only those the host sends, each hears the events
//! the other sends, and every refusal is the protocol's own error with JSON-RPC's codes,
//! never an agent code.

mod rpc {
    contracts::protocol! { name: "rpc", dir: "tests/two_sided" }
}

use rpc::{Code, EventPayload, RequestPayload, RpcFailure};
use serde_json::value::RawValue;
use std::sync::Mutex;

#[derive(Default)]
struct Server {
    heard: Mutex<Vec<String>>,
}

impl rpc::Host for Server {
    async fn tools_call(
        &self,
        payload: rpc::ToolsCallPayload,
    ) -> Result<rpc::ToolsCallResult, RpcFailure> {
        Ok(rpc::ToolsCallResult::new(format!("ran {}", payload.name)))
    }
    async fn ping(&self, _: rpc::PingPayload) -> Result<rpc::PingResult, RpcFailure> {
        Ok(rpc::PingResult::new())
    }
    async fn initialized(&self, _: rpc::InitializedEvent) {
        self.heard.lock().unwrap().push("initialized".into());
    }
    async fn progress(&self, payload: rpc::ProgressEvent) {
        self.heard
            .lock()
            .unwrap()
            .push(format!("progress {}", payload.done));
    }
}

#[derive(Default)]
struct Client {
    heard: Mutex<Vec<String>>,
}

impl rpc::ClientHandler for Client {
    async fn sampling_create(
        &self,
        payload: rpc::SamplingCreatePayload,
    ) -> Result<rpc::SamplingCreateResult, RpcFailure> {
        Ok(rpc::SamplingCreateResult::new(
            payload.prompt.to_uppercase(),
        ))
    }
    async fn log(&self, payload: rpc::LogEvent) {
        self.heard.lock().unwrap().push(payload.line);
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn raw(s: &str) -> Box<RawValue> {
    RawValue::from_string(s.to_owned()).unwrap()
}

#[test]
fn each_side_answers_what_the_other_sends() {
    let server = Server::default();
    let out = block_on(rpc::dispatch(
        &server,
        "tools/call",
        &raw(r#"{"name":"x"}"#),
    ))
    .unwrap();
    assert_eq!(out.get(), r#"{"text":"ran x"}"#);
    let out = block_on(rpc::dispatch(&server, "ping", &raw("{}"))).unwrap();
    assert_eq!(out.get(), "{}");
    // The server does not answer what it sends itself: as unknown as a name no table has.
    let e = block_on(rpc::dispatch(
        &server,
        "sampling/create",
        &raw(r#"{"prompt":"p"}"#),
    ))
    .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (Code::MethodNotFound, "method not found: sampling/create")
    );

    let client = Client::default();
    let out = block_on(rpc::dispatch_to_client(
        &client,
        "sampling/create",
        &raw(r#"{"prompt":"hi"}"#),
    ))
    .unwrap();
    assert_eq!(out.get(), r#"{"reply":"HI"}"#);
    let e = block_on(rpc::dispatch_to_client(
        &client,
        "tools/call",
        &raw(r#"{"name":"x"}"#),
    ))
    .unwrap_err();
    assert_eq!(e.code, Code::MethodNotFound);
    // `ping` goes both ways; this client leaves it to the default, which refuses.
    let e = block_on(rpc::dispatch_to_client(&client, "ping", &raw("{}"))).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            Code::MethodNotFound,
            "method not found: ping is not supported"
        )
    );
}

#[test]
fn refusals_carry_json_rpc_codes() {
    let server = Server::default();
    let e = block_on(rpc::dispatch(&server, "nope", &raw("{}"))).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (Code::MethodNotFound, "method not found: nope")
    );
    let e = block_on(rpc::dispatch(&server, "tools/call", &raw(r#"{"name":""}"#))).unwrap_err();
    assert_eq!(e.code, Code::InvalidParams);
    assert_eq!(
        e.message,
        "✖ Too small: expected string to have >=1 characters\n  → at name"
    );
    assert_eq!(e.code.value(), -32602);
    let written = serde_json::to_string(&e).unwrap();
    assert!(written.starts_with(r#"{"code":-32602,"#), "{written}");
}

#[test]
fn each_side_hears_the_events_the_other_sends() {
    let server = Server::default();
    let client = Client::default();
    let progress = EventPayload::parse("progress", r#"{"token":"t","done":3}"#).unwrap();
    for (name, json) in [("initialized", "{}"), ("log", r#"{"line":"hello"}"#)] {
        let event = EventPayload::parse(name, json).unwrap();
        block_on(rpc::notify(&server, event.clone()));
        block_on(rpc::notify_client(&client, event));
    }
    block_on(rpc::notify(&server, progress.clone()));
    block_on(rpc::notify_client(&client, progress));
    // The server heard what a client sends (`log` is the server's own), the client the rest.
    assert_eq!(*server.heard.lock().unwrap(), ["initialized", "progress 3"]);
    assert_eq!(*client.heard.lock().unwrap(), ["hello"]);
}

#[test]
fn the_by_name_enums_hold_both_sides() {
    assert_eq!(
        rpc::REQUEST_NAMES,
        &["tools/call", "sampling/create", "ping", "references"]
    );
    let p = RequestPayload::parse("sampling/create", r#"{"prompt":"p"}"#).unwrap();
    assert!(matches!(p, RequestPayload::SamplingCreate(_)));
}

/// A connection to the other side in the same process: a call is its dispatcher's answer.
struct Loopback<'a, D>(&'a D);

impl<D: contracts::wire::Dispatch<Payload = RequestPayload, Error = RpcFailure>>
    contracts::wire::Call for Loopback<'_, D>
{
    type Error = RpcFailure;
    async fn call_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<Box<RawValue>, RpcFailure> {
        use contracts::wire::ByName;
        match RequestPayload::read_named(method, params.get()) {
            Ok(payload) => self.0.dispatch_payload(payload).await,
            Err(e) => Err(contracts::__private::table_refusal(&e)),
        }
    }
    async fn notify_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<(), RpcFailure> {
        let _ = (method, params);
        Ok(())
    }
}

#[test]
fn each_side_calls_the_other_typed() {
    let server = Server::default();
    let to_server = rpc::Dispatcher(&server);
    let loopback = Loopback(&to_server);
    let calls = rpc::ClientCalls(&loopback);
    let out = block_on(calls.tools_call(rpc::ToolsCallPayload::new("grep"))).unwrap();
    assert_eq!(out.text, "ran grep");
    block_on(calls.ping(rpc::PingPayload::new())).unwrap();
    block_on(calls.initialized(rpc::InitializedEvent::new())).unwrap();
    // A refusal comes back as the other side's error.
    match block_on(calls.tools_call(rpc::ToolsCallPayload::new(""))) {
        Err(contracts::wire::CallError::Call(e)) => assert_eq!(e.code, Code::InvalidParams),
        other => panic!("{other:?}"),
    }

    let client = Client::default();
    let to_client = rpc::ClientDispatcher(&client);
    let loopback = Loopback(&to_client);
    let calls = rpc::HostCalls(&loopback);
    let out = block_on(calls.sampling_create(rpc::SamplingCreatePayload::new("hi"))).unwrap();
    assert_eq!(out.reply, "HI");
    block_on(calls.log(rpc::LogEvent::new("a line"))).unwrap();
}

/// A connection whose other side answers a result the table refuses.
struct Broken;

impl contracts::wire::Call for Broken {
    type Error = std::convert::Infallible;
    async fn call_raw(
        &self,
        _: &'static str,
        _: Box<RawValue>,
    ) -> Result<Box<RawValue>, Self::Error> {
        Ok(raw(r#"{"text":7}"#))
    }
    async fn notify_raw(&self, _: &'static str, _: Box<RawValue>) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[test]
fn a_result_the_table_refuses_is_an_error_naming_it() {
    let e = block_on(rpc::ClientCalls(&Broken).tools_call(rpc::ToolsCallPayload::new("x")))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the result of tools/call is not valid: ✖ Invalid input: expected string, received number\n  → at text"
    );
}

#[test]
fn a_request_declares_its_partial_results_and_error_data() {
    use contracts::wire::{ErrorData, PartialResult};
    type Refs = rpc::requests::References;
    let part: Vec<rpc::LocationsItem> =
        Refs::parse_partial(r#"[{"file":"a.rs","line":3}]"#).unwrap();
    assert_eq!(part[0].line, 3);
    assert_eq!(
        Refs::parse_partial(r#"[{"file":"a.rs","line":0}]"#)
            .unwrap_err()
            .to_string(),
        "✖ Too small: expected number to be >=1\n  → at [0].line"
    );
    let data: rpc::RetryData = Refs::parse_error_data(r#"{"retry":true}"#).unwrap();
    assert!(data.retry);
    assert!(Refs::parse_error_data(r#"{"retry":"yes"}"#).is_err());
}
