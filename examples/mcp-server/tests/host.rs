//! The server's `Host` against a client in the same process: every request goes in as JSON
//! through the generated `mcp::dispatch` and its answer comes out as JSON, and the server's
//! way back to the client is a loopback `wire::Call` into the generated client dispatcher, so
//! sampling, elicitation, log messages and progress travel through the same typed callers as
//! over a connection. Each fixture is checked against what the conformance suite's scenarios
//! read off it, and each refusal against MCP's codes.

use contracts::mcp::{
    self, ClientHandler, CreateMessageOutcome, CreateMessageRequestParams, CreateMessageResult,
    ElicitAction, ElicitOutcome, ElicitRequestParams, ElicitResult, ElicitValue, EventPayload,
    JsonRpcError, LoggingMessageNotificationParams, ProgressNotificationParams, RequestPayload,
    Role, SamplingMessageContent, SamplingMessageContentBlock, TextContent,
};
use contracts::wire::{ByName, Call};
use mcp_server::Server;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// A client that answers sampling with a fixed reply and forms with fixed values, and keeps
/// what the server sent it, each as JSON: `[method, params]`.
#[derive(Default)]
struct Client {
    heard: Mutex<Vec<(String, Value)>>,
}

impl Client {
    fn hear(&self, method: &str, params: &impl serde::Serialize) {
        let params = serde_json::to_value(params).expect("generated types serialise");
        self.heard.lock().unwrap().push((method.to_owned(), params));
    }

    fn heard(&self, method: &str) -> Vec<Value> {
        let heard = self.heard.lock().unwrap();
        heard
            .iter()
            .filter(|(m, _)| m == method)
            .map(|(_, p)| p.clone())
            .collect()
    }
}

impl ClientHandler for Client {
    async fn sampling_create_message(
        &self,
        payload: CreateMessageRequestParams,
    ) -> Result<CreateMessageOutcome, JsonRpcError> {
        self.hear("sampling/createMessage", &payload);
        let reply = SamplingMessageContent::from(SamplingMessageContentBlock::from(
            TextContent::new("This is a test response from the client"),
        ));
        Ok(CreateMessageResult::new(Role::Assistant, reply, "test-model").into())
    }

    async fn elicitation_create(
        &self,
        payload: ElicitRequestParams,
    ) -> Result<ElicitOutcome, JsonRpcError> {
        self.hear("elicitation/create", &payload);
        let content = BTreeMap::from([
            (
                "username".to_owned(),
                ElicitValue::String("testuser".to_owned()),
            ),
            ("age".to_owned(), ElicitValue::Int(25)),
        ]);
        Ok(ElicitResult::new(ElicitAction::Accept)
            .content(content)
            .into())
    }

    async fn notifications_message(&self, payload: LoggingMessageNotificationParams) {
        self.hear("notifications/message", &payload);
    }

    async fn notifications_progress(&self, payload: ProgressNotificationParams) {
        self.hear("notifications/progress", &payload);
    }
}

/// The server's way back to a client in the same process: a request is the client
/// dispatcher's answer, a notification goes to the client's handler.
struct Loopback(Arc<Client>);

impl Call for Loopback {
    type Error = JsonRpcError;

    async fn call_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<Box<RawValue>, JsonRpcError> {
        use contracts::wire::Dispatch;
        match RequestPayload::read_named(method, params.get()) {
            Ok(payload) => {
                mcp::ClientDispatcher(&*self.0)
                    .dispatch_payload(payload)
                    .await
            }
            Err(e) => Err(contracts::__private::table_refusal(&e)),
        }
    }

    async fn notify_raw(
        &self,
        method: &'static str,
        params: Box<RawValue>,
    ) -> Result<(), JsonRpcError> {
        let event = EventPayload::parse(method, params.get())
            .map_err(|e| JsonRpcError::new(mcp::ErrorCode::InvalidParams, e.to_string()))?;
        mcp::notify_client(&*self.0, event).await;
        Ok(())
    }
}

impl mcp_server::context::ResponseStream for Loopback {
    fn close_response_stream(&self) -> bool {
        false
    }
}

/// A server and its client, the server initialized with the client's `capabilities`.
struct Pair {
    server: Server<Loopback>,
    client: Arc<Client>,
}

impl Pair {
    async fn new(capabilities: Value) -> Pair {
        let client = Arc::new(Client::default());
        let server = Server::new(Loopback(client.clone()));
        let pair = Pair { server, client };
        pair.ok(
            "initialize",
            json!({
                "protocolVersion": mcp::LATEST_PROTOCOL_VERSION,
                "capabilities": capabilities,
                "clientInfo": {"name": "loopback", "version": "1"},
            }),
        )
        .await;
        pair
    }

    /// A client that declares sampling and elicitation, as the conformance suite's does.
    async fn full() -> Pair {
        Pair::new(json!({"sampling": {}, "elicitation": {}})).await
    }

    async fn send(&self, method: &str, params: Value) -> Result<Value, JsonRpcError> {
        let params = RawValue::from_string(params.to_string()).unwrap();
        let out = mcp::dispatch(&self.server, method, &params).await?;
        Ok(serde_json::from_str(out.get()).unwrap())
    }

    async fn ok(&self, method: &str, params: Value) -> Value {
        self.send(method, params)
            .await
            .unwrap_or_else(|e| panic!("{method} refused: {e:?}"))
    }

    async fn refused(&self, method: &str, params: Value) -> (i64, String) {
        match self.send(method, params).await {
            Ok(v) => panic!("{method} answered {v}"),
            Err(e) => (e.code.value(), e.message),
        }
    }

    async fn call(&self, tool: &str, arguments: Value) -> Value {
        self.ok("tools/call", json!({"name": tool, "arguments": arguments}))
            .await
    }
}

/// The text of a tool result's only block.
fn only_text(result: &Value) -> &str {
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "{result}");
    assert_eq!(content[0]["type"], "text", "{result}");
    content[0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn initialize_answers_the_version_and_the_capabilities() {
    let pair = Pair::full().await;
    let answer = pair
        .ok(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "older", "version": "1"},
            }),
        )
        .await;
    assert_eq!(answer["protocolVersion"], "2025-06-18");
    assert_eq!(answer["serverInfo"]["name"], "mcp-server");
    let caps = &answer["capabilities"];
    for key in ["tools", "prompts", "logging", "completions"] {
        assert!(caps[key].is_object(), "{key} missing: {caps}");
    }
    assert_eq!(caps["resources"]["subscribe"], true);
    let answer = pair
        .ok(
            "initialize",
            json!({
                "protocolVersion": "1999-01-01",
                "capabilities": {},
                "clientInfo": {"name": "future", "version": "1"},
            }),
        )
        .await;
    assert_eq!(answer["protocolVersion"], mcp::LATEST_PROTOCOL_VERSION);
    assert_eq!(pair.ok("ping", json!({})).await, json!({}));
}

#[tokio::test]
async fn tools_list_names_every_tool_with_a_description_and_an_object_schema() {
    let pair = Pair::full().await;
    let listed = pair.ok("tools/list", json!({})).await;
    let tools = listed["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "test_simple_text",
            "test_image_content",
            "test_audio_content",
            "test_embedded_resource",
            "test_multiple_content_types",
            "test_tool_with_logging",
            "test_tool_with_progress",
            "test_error_handling",
            "test_reconnection",
            "test_sampling",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
            "json_schema_2020_12_tool",
        ]
    );
    for tool in tools {
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
    let sampling = &tools[9]["inputSchema"];
    assert_eq!(sampling["required"], json!(["prompt"]));
    assert_eq!(sampling["properties"]["prompt"]["type"], "string");
    // SEP-1613: the dialect, the definitions and additionalProperties are kept.
    let schema = &tools[13]["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["type"], "object");
    assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/address");
    assert_eq!(schema["additionalProperties"], false);
}

#[tokio::test]
async fn content_tools_answer_each_kind_of_block() {
    let pair = Pair::full().await;
    let simple = pair.call("test_simple_text", json!({})).await;
    assert_eq!(
        only_text(&simple),
        "This is a simple text response for testing."
    );
    // Arguments may be left out when the schema requires none.
    let without = pair
        .ok("tools/call", json!({"name": "test_simple_text"}))
        .await;
    assert_eq!(without, simple);

    let image = pair.call("test_image_content", json!({})).await;
    assert_eq!(image["content"][0]["type"], "image");
    assert_eq!(image["content"][0]["mimeType"], "image/png");
    assert!(image["content"][0]["data"].as_str().unwrap().len() > 20);

    let audio = pair.call("test_audio_content", json!({})).await;
    assert_eq!(audio["content"][0]["type"], "audio");
    assert_eq!(audio["content"][0]["mimeType"], "audio/wav");

    let embedded = pair.call("test_embedded_resource", json!({})).await;
    assert_eq!(
        embedded["content"][0],
        json!({
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        })
    );

    let mixed = pair.call("test_multiple_content_types", json!({})).await;
    let kinds: Vec<&str> = mixed["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    let json_text = mixed["content"][2]["resource"]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(json_text).unwrap(),
        json!({"test": "data", "value": 123})
    );
    assert_eq!(mixed.get("isError"), None);
}

#[tokio::test]
async fn the_error_tool_answers_is_error_and_an_unknown_tool_is_invalid_params() {
    let pair = Pair::full().await;
    let failed = pair.call("test_error_handling", json!({})).await;
    assert_eq!(failed["isError"], true);
    assert_eq!(
        only_text(&failed),
        "This tool intentionally returns an error for testing"
    );
    assert_eq!(
        pair.refused("tools/call", json!({"name": "no_such_tool"}))
            .await,
        (-32602, "Unknown tool: no_such_tool".to_owned())
    );
}

#[tokio::test]
async fn the_reconnection_tool_answers_where_there_is_no_stream_to_close() {
    let pair = Pair::full().await;
    let done = pair.call("test_reconnection", json!({})).await;
    assert_eq!(
        only_text(&done),
        "Reconnection test completed: this transport has no stream to close."
    );
}

#[tokio::test]
async fn the_logging_tool_logs_three_messages_the_level_lets_through() {
    let pair = Pair::full().await;
    assert_eq!(
        pair.ok("logging/setLevel", json!({"level": "debug"})).await,
        json!({})
    );
    let done = pair.call("test_tool_with_logging", json!({})).await;
    assert_eq!(only_text(&done), "Tool with logging executed successfully");
    let logs = pair.client.heard("notifications/message");
    let data: Vec<&str> = logs.iter().map(|l| l["data"].as_str().unwrap()).collect();
    assert_eq!(
        data,
        [
            "Log level set to: debug",
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
    );
    assert!(
        logs.iter()
            .all(|l| l["level"] == "info" && l["logger"] == "mcp-server")
    );

    // Above info, nothing of the tool's is sent.
    pair.ok("logging/setLevel", json!({"level": "warning"}))
        .await;
    pair.call("test_tool_with_logging", json!({})).await;
    assert_eq!(pair.client.heard("notifications/message").len(), 4);
    assert_eq!(
        pair.refused("logging/setLevel", json!({"level": "loud"}))
            .await
            .0,
        -32602
    );
}

#[tokio::test]
async fn the_progress_tool_reports_with_the_request_token_only_when_asked() {
    let pair = Pair::full().await;
    let params = json!({
        "name": "test_tool_with_progress",
        "arguments": {},
        "_meta": {"progressToken": "progress-test-1"},
    });
    pair.ok("tools/call", params).await;
    let progress = pair.client.heard("notifications/progress");
    let steps: Vec<(f64, f64)> = progress
        .iter()
        .map(|p| {
            assert_eq!(p["progressToken"], "progress-test-1");
            (
                p["progress"].as_f64().unwrap(),
                p["total"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(steps, [(0.0, 100.0), (50.0, 100.0), (100.0, 100.0)]);
    // An integer token comes back an integer.
    pair.ok(
        "tools/call",
        json!({"name": "test_tool_with_progress", "_meta": {"progressToken": 7}}),
    )
    .await;
    assert_eq!(
        pair.client.heard("notifications/progress")[3]["progressToken"],
        7
    );
    // Without a token, no progress.
    pair.call("test_tool_with_progress", json!({})).await;
    assert_eq!(pair.client.heard("notifications/progress").len(), 6);
}

#[tokio::test]
async fn the_sampling_tool_asks_the_client_and_answers_its_reply() {
    let pair = Pair::full().await;
    let answer = pair
        .call(
            "test_sampling",
            json!({"prompt": "Test prompt for sampling"}),
        )
        .await;
    assert_eq!(
        only_text(&answer),
        "LLM response: This is a test response from the client"
    );
    assert_eq!(
        pair.client.heard("sampling/createMessage"),
        [json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}],
            "maxTokens": 100,
        })]
    );
    // A missing argument, and a client without sampling, are tool errors.
    let missing = pair.call("test_sampling", json!({})).await;
    assert_eq!(missing["isError"], true);
    assert_eq!(only_text(&missing), "missing argument `prompt` (a string)");
    let plain = Pair::new(json!({})).await;
    let refused = plain.call("test_sampling", json!({"prompt": "p"})).await;
    assert_eq!(refused["isError"], true);
    assert_eq!(only_text(&refused), "the client does not support sampling");
    assert!(plain.client.heard("sampling/createMessage").is_empty());
}

#[tokio::test]
async fn the_elicitation_tools_send_their_forms() {
    let pair = Pair::full().await;
    let answer = pair
        .call(
            "test_elicitation",
            json!({"message": "Please provide your information"}),
        )
        .await;
    assert_eq!(
        only_text(&answer),
        r#"User response: action=accept, content={"age":25,"username":"testuser"}"#
    );
    let defaults = pair
        .call("test_elicitation_sep1034_defaults", json!({}))
        .await;
    assert!(only_text(&defaults).starts_with("Elicitation completed: action=accept"));
    pair.call("test_elicitation_sep1330_enums", json!({})).await;

    let forms = pair.client.heard("elicitation/create");
    assert_eq!(forms.len(), 3);
    assert_eq!(forms[0]["message"], "Please provide your information");
    let contact = &forms[0]["requestedSchema"];
    assert_eq!(contact["required"], json!(["username", "email"]));
    assert_eq!(contact["properties"]["email"]["type"], "string");

    // SEP-1034: a default of every primitive type.
    let fields = &forms[1]["requestedSchema"]["properties"];
    assert_eq!(
        fields["name"],
        json!({"type": "string", "description": "User name", "default": "John Doe"})
    );
    assert_eq!(fields["age"]["type"], "integer");
    assert_eq!(fields["age"]["default"], 30.0);
    assert_eq!(fields["score"]["default"], 95.5);
    assert_eq!(
        fields["status"]["enum"],
        json!(["active", "inactive", "pending"])
    );
    assert_eq!(fields["status"]["default"], "active");
    assert_eq!(
        fields["verified"],
        json!({"type": "boolean", "description": "Verification status", "default": true})
    );

    // SEP-1330: the five kinds of enum, each with only its own keywords.
    let fields = &forms[2]["requestedSchema"]["properties"];
    assert_eq!(
        fields["untitledSingle"]["enum"],
        json!(["option1", "option2", "option3"])
    );
    assert!(fields["untitledSingle"].get("oneOf").is_none());
    assert_eq!(fields["titledSingle"]["type"], "string");
    assert_eq!(
        fields["titledSingle"]["oneOf"][0],
        json!({"const": "value1", "title": "First Option"})
    );
    assert_eq!(
        fields["legacyEnum"]["enumNames"],
        json!(["Option One", "Option Two", "Option Three"])
    );
    assert_eq!(fields["untitledMulti"]["type"], "array");
    assert_eq!(
        fields["untitledMulti"]["items"],
        json!({"type": "string", "enum": ["option1", "option2", "option3"]})
    );
    assert_eq!(
        fields["titledMulti"]["items"]["anyOf"][2],
        json!({"const": "value3", "title": "Third Choice"})
    );
    assert!(fields["titledMulti"]["items"].get("enum").is_none());

    // A client without elicitation gets no form; the tool says so.
    let plain = Pair::new(json!({"sampling": {}})).await;
    let refused = plain
        .call("test_elicitation", json!({"message": "m"}))
        .await;
    assert_eq!(refused["isError"], true);
    assert!(plain.client.heard("elicitation/create").is_empty());
}

#[tokio::test]
async fn the_2020_12_tool_checks_its_arguments() {
    let pair = Pair::full().await;
    let ok = pair
        .call(
            "json_schema_2020_12_tool",
            json!({"name": "n", "address": {"city": "c"}}),
        )
        .await;
    assert_eq!(
        only_text(&ok),
        r#"JSON Schema 2020-12 tool called with: {"address":{"city":"c"},"name":"n"}"#
    );
    let extra = pair
        .call("json_schema_2020_12_tool", json!({"nickname": "x"}))
        .await;
    assert_eq!(extra["isError"], true);
    let wrong = pair
        .call(
            "json_schema_2020_12_tool",
            json!({"address": {"street": 3}}),
        )
        .await;
    assert_eq!(
        only_text(&wrong),
        "argument `address.street` must be a string"
    );
}

#[tokio::test]
async fn resources_list_read_and_subscribe() {
    let pair = Pair::full().await;
    let listed = pair.ok("resources/list", json!({})).await;
    let uris: Vec<&str> = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert!(r["name"].is_string() && r["description"].is_string());
            r["uri"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        uris,
        [
            "test://static-text",
            "test://static-binary",
            "test://watched-resource"
        ]
    );
    let templates = pair.ok("resources/templates/list", json!({})).await;
    assert_eq!(
        templates["resourceTemplates"][0]["uriTemplate"],
        "test://template/{id}/data"
    );

    let text = pair
        .ok("resources/read", json!({"uri": "test://static-text"}))
        .await;
    assert_eq!(
        text["contents"],
        json!([{
            "uri": "test://static-text",
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource.",
        }])
    );
    let binary = pair
        .ok("resources/read", json!({"uri": "test://static-binary"}))
        .await;
    assert_eq!(binary["contents"][0]["mimeType"], "image/png");
    assert!(binary["contents"][0]["blob"].is_string());
    let templated = pair
        .ok("resources/read", json!({"uri": "test://template/123/data"}))
        .await;
    assert_eq!(templated["contents"][0]["uri"], "test://template/123/data");
    let data: Value =
        serde_json::from_str(templated["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        data,
        json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"})
    );

    for uri in [
        "test://nothing",
        "test://template//data",
        "test://template/1/2/data",
    ] {
        let (code, message) = pair.refused("resources/read", json!({"uri": uri})).await;
        assert_eq!(
            (code, message.as_str()),
            (-32002, "Resource not found"),
            "{uri}"
        );
    }
    assert_eq!(
        pair.refused("resources/read", json!({"uri": "no scheme"}))
            .await
            .0,
        -32602
    );

    let watched = json!({"uri": "test://watched-resource"});
    assert_eq!(
        pair.ok("resources/subscribe", watched.clone()).await,
        json!({})
    );
    assert_eq!(
        pair.server.session().subscriptions(),
        ["test://watched-resource"]
    );
    assert_eq!(
        pair.refused("resources/subscribe", json!({"uri": "test://nothing"}))
            .await
            .0,
        -32002
    );
    assert_eq!(
        pair.ok("resources/unsubscribe", watched.clone()).await,
        json!({})
    );
    assert!(pair.server.session().subscriptions().is_empty());
    // Ending a subscription that is not there is no error.
    assert_eq!(pair.ok("resources/unsubscribe", watched).await, json!({}));
}

#[tokio::test]
async fn prompts_list_and_get_with_their_arguments() {
    let pair = Pair::full().await;
    let listed = pair.ok("prompts/list", json!({})).await;
    let prompts = listed["prompts"].as_array().unwrap();
    let names: Vec<&str> = prompts
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
        ]
    );
    assert!(prompts.iter().all(|p| p["description"].is_string()));
    assert_eq!(
        prompts[1]["arguments"],
        json!([
            {"name": "arg1", "description": "First test argument", "required": true},
            {"name": "arg2", "description": "Second test argument", "required": true},
        ])
    );
    assert!(prompts[0].get("arguments").is_none());

    let simple = pair
        .ok("prompts/get", json!({"name": "test_simple_prompt"}))
        .await;
    assert_eq!(
        simple["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
    );
    let with_args = pair
        .ok(
            "prompts/get",
            json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "testValue1", "arg2": "testValue2"}}),
        )
        .await;
    assert_eq!(
        with_args["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
    );
    let embedded = pair
        .ok(
            "prompts/get",
            json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://example-resource"}}),
        )
        .await;
    assert_eq!(embedded["messages"][0]["content"]["type"], "resource");
    assert_eq!(
        embedded["messages"][0]["content"]["resource"]["uri"],
        "test://example-resource"
    );
    let image = pair
        .ok("prompts/get", json!({"name": "test_prompt_with_image"}))
        .await;
    assert_eq!(image["messages"][0]["content"]["type"], "image");
    assert_eq!(image["messages"][1]["content"]["type"], "text");

    assert_eq!(
        pair.refused(
            "prompts/get",
            json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}})
        )
        .await,
        (
            -32602,
            "prompt test_prompt_with_arguments needs the argument `arg2`".to_owned()
        )
    );
    assert_eq!(
        pair.refused("prompts/get", json!({"name": "nope"})).await,
        (-32602, "Unknown prompt: nope".to_owned())
    );
}

#[tokio::test]
async fn completion_offers_the_candidates_that_start_with_what_was_typed() {
    let pair = Pair::full().await;
    let complete = |r: Value, name: &str, value: &str| json!({"ref": r, "argument": {"name": name, "value": value}});
    let prompt = json!({"type": "ref/prompt", "name": "test_prompt_with_arguments"});
    let answer = pair
        .ok(
            "completion/complete",
            complete(prompt.clone(), "arg1", "par"),
        )
        .await;
    assert_eq!(
        answer["completion"],
        json!({"values": ["paris", "park", "party"], "total": 3, "hasMore": false})
    );
    let none = pair
        .ok(
            "completion/complete",
            complete(prompt.clone(), "arg1", "test"),
        )
        .await;
    assert_eq!(none["completion"]["values"], json!([]));
    let template = json!({"type": "ref/resource", "uri": "test://template/{id}/data"});
    let ids = pair
        .ok("completion/complete", complete(template.clone(), "id", "1"))
        .await;
    assert_eq!(ids["completion"]["values"], json!(["1", "123"]));

    for (r, name) in [
        (prompt, "arg9"),
        (json!({"type": "ref/prompt", "name": "nope"}), "arg1"),
        (template, "nope"),
    ] {
        assert_eq!(
            pair.refused("completion/complete", complete(r, name, ""))
                .await
                .0,
            -32602
        );
    }
}

#[tokio::test]
async fn a_cursor_never_issued_is_invalid_params() {
    let pair = Pair::full().await;
    for method in [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ] {
        let (code, message) = pair.refused(method, json!({"cursor": "next"})).await;
        assert_eq!(code, -32602, "{method}");
        assert!(message.contains("cursor"), "{message}");
    }
}

#[tokio::test]
async fn a_prompt_argument_that_cannot_be_a_uri_is_invalid_params() {
    let pair = Pair::full().await;
    let (code, message) = pair
        .refused(
            "prompts/get",
            json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "no scheme"}}),
        )
        .await;
    assert_eq!(code, -32602);
    assert!(
        message.starts_with("argument `resourceUri` does not fit: ✖ Invalid string"),
        "{message}"
    );
    assert!(message.ends_with("→ at uri"), "{message}");
}
