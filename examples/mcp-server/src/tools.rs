//! The tools: what `tools/list` lists and `tools/call` runs. Their names, arguments and
//! results are those the conformance suite's tool scenarios ask of a server
//! (`src/scenarios/server/tools.ts`, `elicitation-*.ts`, `json-schema-2020-12.ts`).
//!
//! A call of a tool nobody lists is a protocol error (-32602, `Unknown tool: NAME`), as MCP's
//! tools page says; arguments a tool cannot use, and a tool that fails, answer a result with
//! `isError: true` and the reason as text, which a model can read and correct.

use crate::context::{Context, ResponseStream};
use crate::media;
use contracts::mcp::{
    BooleanSchema, CallToolRequestParams, CallToolResult, ContentBlock, ElicitRequestFormParams,
    ElicitRequestFormParamsRequestedSchema, ElicitResult, EmbeddedResource, EnumSchema, ErrorCode,
    ImageContent, JsonRpcError, LegacyTitledEnumSchema, LoggingLevel, MultiSelectEnumSchema,
    NumberSchema, NumberSchemaType, PrimitiveSchemaDefinition, SingleSelectEnumSchema,
    StringSchema, TextContent, TextResourceContents, TitledEnumOption, TitledMultiSelectEnumSchema,
    TitledMultiSelectEnumSchemaItems, TitledSingleSelectEnumSchema, Tool as ToolDef,
    ToolInputSchema, UntitledMultiSelectEnumSchema, UntitledMultiSelectEnumSchemaItems,
    UntitledSingleSelectEnumSchema,
};
use contracts::wire::{Call, RawJson};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::time::Duration;

/// Every tool, in the order `tools/list` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `test_simple_text`: one text block.
    SimpleText,
    /// `test_image_content`: one PNG image.
    Image,
    /// `test_audio_content`: one WAV clip.
    Audio,
    /// `test_embedded_resource`: one embedded text resource.
    EmbeddedResource,
    /// `test_multiple_content_types`: text, an image and an embedded JSON resource.
    MultipleContentTypes,
    /// `test_tool_with_logging`: three log messages while it runs.
    Logging,
    /// `test_tool_with_progress`: progress 0, 50 and 100 of 100.
    Progress,
    /// `test_error_handling`: always fails.
    ErrorHandling,
    /// `test_reconnection`: ends its response stream before answering (SSE polling).
    Reconnection,
    /// `test_sampling`: asks the client's LLM.
    Sampling,
    /// `test_elicitation`: asks the user for a name and an email address.
    Elicitation,
    /// `test_elicitation_sep1034_defaults`: a form with a default for every primitive type.
    ElicitationDefaults,
    /// `test_elicitation_sep1330_enums`: a form with every kind of enum.
    ElicitationEnums,
    /// `json_schema_2020_12_tool`: an input schema with `$schema`, `$defs` and
    /// `additionalProperties`.
    JsonSchema2020,
}

/// The pause between two steps of the logging and progress tools, so a client sees the
/// notifications arrive while the call runs.
const STEP: Duration = Duration::from_millis(50);

/// How long `test_reconnection` waits after closing its stream, so the client reconnects
/// while the call still runs.
const RECONNECT_WAIT: Duration = Duration::from_millis(100);

/// The JSON Schema dialect MCP assumes for input schemas, written out by one tool.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

impl Tool {
    /// Every tool, in order.
    pub const ALL: [Tool; 14] = [
        Tool::SimpleText,
        Tool::Image,
        Tool::Audio,
        Tool::EmbeddedResource,
        Tool::MultipleContentTypes,
        Tool::Logging,
        Tool::Progress,
        Tool::ErrorHandling,
        Tool::Reconnection,
        Tool::Sampling,
        Tool::Elicitation,
        Tool::ElicitationDefaults,
        Tool::ElicitationEnums,
        Tool::JsonSchema2020,
    ];

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::SimpleText => "test_simple_text",
            Tool::Image => "test_image_content",
            Tool::Audio => "test_audio_content",
            Tool::EmbeddedResource => "test_embedded_resource",
            Tool::MultipleContentTypes => "test_multiple_content_types",
            Tool::Logging => "test_tool_with_logging",
            Tool::Progress => "test_tool_with_progress",
            Tool::ErrorHandling => "test_error_handling",
            Tool::Reconnection => "test_reconnection",
            Tool::Sampling => "test_sampling",
            Tool::Elicitation => "test_elicitation",
            Tool::ElicitationDefaults => "test_elicitation_sep1034_defaults",
            Tool::ElicitationEnums => "test_elicitation_sep1330_enums",
            Tool::JsonSchema2020 => "json_schema_2020_12_tool",
        }
    }

    /// The tool called `name`, if any.
    pub fn named(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    fn description(self) -> &'static str {
        match self {
            Tool::SimpleText => "Tests simple text content response",
            Tool::Image => "Tests image content response",
            Tool::Audio => "Tests audio content response",
            Tool::EmbeddedResource => "Tests embedded resource content response",
            Tool::MultipleContentTypes => {
                "Tests response with multiple content types (text, image, resource)"
            }
            Tool::Logging => "Tests tool that emits log messages during execution",
            Tool::Progress => "Tests tool that reports progress notifications",
            Tool::ErrorHandling => "Tests error response handling",
            Tool::Reconnection => {
                "Tests SSE stream disconnection and client reconnection (SEP-1699): the server \
                 closes the stream mid-call and sends the result after the client reconnects"
            }
            Tool::Sampling => "Tests server-initiated sampling (LLM completion request)",
            Tool::Elicitation => "Tests server-initiated elicitation (user input request)",
            Tool::ElicitationDefaults => "Tests elicitation with default values per SEP-1034",
            Tool::ElicitationEnums => {
                "Tests elicitation with enum schema improvements per SEP-1330"
            }
            Tool::JsonSchema2020 => {
                "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"
            }
        }
    }

    /// The tool's input schema: no arguments, one required string, or (the 2020-12 tool)
    /// a schema with `$schema`, `$defs` and `additionalProperties`.
    fn input_schema(self) -> ToolInputSchema {
        match self {
            Tool::Sampling => one_string_argument("prompt", "The prompt to send to the LLM"),
            Tool::Elicitation => one_string_argument("message", "The message to show the user"),
            Tool::JsonSchema2020 => {
                let mut schema =
                    ToolInputSchema::new()
                        .schema(DRAFT_2020_12)
                        .properties(properties([
                            ("name", json!({"type": "string"})),
                            ("address", json!({"$ref": "#/$defs/address"})),
                        ]));
                let defs = json!({
                    "address": {
                        "type": "object",
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string"},
                        },
                    },
                });
                schema.extra.insert("$defs".into(), raw(&defs));
                schema
                    .extra
                    .insert("additionalProperties".into(), raw(&json!(false)));
                schema
            }
            _ => ToolInputSchema::new().properties(BTreeMap::new()),
        }
    }

    /// The tool as `tools/list` lists it.
    pub fn definition(self) -> ToolDef {
        ToolDef::new(self.name(), self.input_schema()).description(self.description())
    }

    /// Runs the tool with `params.arguments`; the result says whether it failed.
    pub async fn call<C: Call + ResponseStream>(
        self,
        cx: &Context<'_, C>,
        params: &CallToolRequestParams,
    ) -> CallToolResult
    where
        C::Error: Display,
    {
        let args = Arguments(params.arguments.as_ref());
        let outcome = match self {
            Tool::SimpleText => Ok(text("This is a simple text response for testing.")),
            Tool::Image => Ok(image().into()),
            Tool::Audio => Ok(ContentBlock::from(contracts::mcp::AudioContent::new(
                media::WAV,
                media::WAV_MIME,
            ))),
            Tool::EmbeddedResource => Ok(embedded(
                TextResourceContents::new(
                    "test://embedded-resource",
                    "This is an embedded resource content.",
                )
                .mime_type("text/plain"),
            )),
            Tool::MultipleContentTypes => {
                let json = json!({"test": "data", "value": 123}).to_string();
                return CallToolResult::new(vec![
                    text("Multiple content types test:"),
                    image().into(),
                    embedded(
                        TextResourceContents::new("test://mixed-content-resource", json)
                            .mime_type("application/json"),
                    ),
                ]);
            }
            Tool::Logging => {
                run_with_logging(cx).await;
                Ok(text("Tool with logging executed successfully"))
            }
            Tool::Progress => {
                run_with_progress(cx).await;
                Ok(text("Tool with progress executed successfully"))
            }
            Tool::ErrorHandling => {
                Err("This tool intentionally returns an error for testing".into())
            }
            Tool::Reconnection => {
                let closed = cx.close_response_stream();
                tokio::time::sleep(RECONNECT_WAIT).await;
                Ok(text(if closed {
                    "Reconnection test completed successfully. If you received this, the client \
                     properly reconnected after stream closure."
                } else {
                    "Reconnection test completed: this transport has no stream to close."
                }))
            }
            Tool::Sampling => match args.string("prompt") {
                Ok(prompt) => cx
                    .sample(&prompt, 100)
                    .await
                    .map(|reply| text(format!("LLM response: {reply}"))),
                Err(e) => Err(e),
            },
            Tool::Elicitation => match args.string("message") {
                Ok(message) => cx
                    .elicit(contact_form(&message))
                    .await
                    .map(|r| text(format!("User response: {}", describe(&r)))),
                Err(e) => Err(e),
            },
            Tool::ElicitationDefaults => cx
                .elicit(defaults_form())
                .await
                .map(|r| text(format!("Elicitation completed: {}", describe(&r)))),
            Tool::ElicitationEnums => cx
                .elicit(enums_form())
                .await
                .map(|r| text(format!("Elicitation completed: {}", describe(&r)))),
            Tool::JsonSchema2020 => args
                .address_book()
                .map(|shown| text(format!("JSON Schema 2020-12 tool called with: {shown}"))),
        };
        match outcome {
            Ok(block) => CallToolResult::new(vec![block]),
            Err(reason) => CallToolResult::new(vec![text(reason)]).is_error(true),
        }
    }
}

/// Every tool as `tools/list` lists it.
pub fn list() -> Vec<ToolDef> {
    Tool::ALL.into_iter().map(Tool::definition).collect()
}

/// Runs the tool `params.name`; a name no tool has is refused as MCP says.
pub async fn call<C: Call + ResponseStream>(
    cx: &Context<'_, C>,
    params: &CallToolRequestParams,
) -> Result<CallToolResult, JsonRpcError>
where
    C::Error: Display,
{
    match Tool::named(&params.name) {
        Some(tool) => Ok(tool.call(cx, params).await),
        None => Err(JsonRpcError::new(
            ErrorCode::InvalidParams,
            format!("Unknown tool: {}", params.name),
        )),
    }
}

/// Logs the tool's three steps at `info`, a pause between each.
async fn run_with_logging<C: Call + ResponseStream>(cx: &Context<'_, C>)
where
    C::Error: Display,
{
    cx.log(LoggingLevel::Info, "Tool execution started").await;
    tokio::time::sleep(STEP).await;
    cx.log(LoggingLevel::Info, "Tool processing data").await;
    tokio::time::sleep(STEP).await;
    cx.log(LoggingLevel::Info, "Tool execution completed").await;
}

/// Reports progress 0, 50 and 100 of 100, a pause between each.
async fn run_with_progress<C: Call + ResponseStream>(cx: &Context<'_, C>)
where
    C::Error: Display,
{
    const TOTAL: f64 = 100.0;
    for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        cx.progress(done, TOTAL, &format!("Completed step {done} of {TOTAL}"))
            .await;
    }
}

/// A tool's arguments, read by name.
struct Arguments<'a>(Option<&'a BTreeMap<String, RawJson>>);

impl Arguments<'_> {
    /// The string argument `name`; an error names it when it is missing or not a string.
    fn string(&self, name: &str) -> Result<String, String> {
        match self
            .0
            .and_then(|args| args.get(name))
            .map(RawJson::to_value)
        {
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(format!("argument `{name}` must be a string")),
            None => Err(format!("missing argument `{name}` (a string)")),
        }
    }

    /// The 2020-12 tool's arguments checked against its input schema (`name` a string,
    /// `address` an object of strings `street` and `city`, nothing else), shown as JSON.
    fn address_book(&self) -> Result<String, String> {
        let all = self.0.map(|args| {
            args.iter()
                .map(|(k, v)| (k.clone(), v.to_value()))
                .collect::<serde_json::Map<_, _>>()
        });
        let all = all.unwrap_or_default();
        for (key, value) in &all {
            match (key.as_str(), value) {
                ("name", Value::String(_)) => {}
                ("name", _) => return Err("argument `name` must be a string".into()),
                ("address", Value::Object(fields)) => {
                    for (field, v) in fields {
                        if !matches!(field.as_str(), "street" | "city") {
                            continue;
                        }
                        if !v.is_string() {
                            return Err(format!("argument `address.{field}` must be a string"));
                        }
                    }
                }
                ("address", _) => return Err("argument `address` must be an object".into()),
                (other, _) => {
                    return Err(format!(
                        "unknown argument `{other}` (additionalProperties is false)"
                    ));
                }
            }
        }
        Ok(Value::Object(all).to_string())
    }
}

/// The form of `test_elicitation`: a user name and an email address, both required.
fn contact_form(message: &str) -> ElicitRequestFormParams {
    let fields = BTreeMap::from([
        (
            "username".to_owned(),
            PrimitiveSchemaDefinition::from(StringSchema::new().description("User's response")),
        ),
        (
            "email".to_owned(),
            StringSchema::new()
                .description("User's email address")
                .into(),
        ),
    ]);
    let schema = ElicitRequestFormParamsRequestedSchema::new(fields)
        .required(vec!["username".to_owned(), "email".to_owned()]);
    ElicitRequestFormParams::new(message, schema)
}

/// The form of SEP-1034: a default for a string, an integer, a number, an enum and a boolean.
fn defaults_form() -> ElicitRequestFormParams {
    let status = UntitledSingleSelectEnumSchema::new(vec![
        "active".to_owned(),
        "inactive".to_owned(),
        "pending".to_owned(),
    ])
    .description("User status")
    .default("active");
    let fields = BTreeMap::from([
        (
            "name".to_owned(),
            PrimitiveSchemaDefinition::from(
                StringSchema::new()
                    .description("User name")
                    .default("John Doe"),
            ),
        ),
        (
            "age".to_owned(),
            NumberSchema::new(NumberSchemaType::Integer)
                .description("User age")
                .default(30.0)
                .into(),
        ),
        (
            "score".to_owned(),
            NumberSchema::new(NumberSchemaType::Number)
                .description("User score")
                .default(95.5)
                .into(),
        ),
        ("status".to_owned(), single_select(status)),
        (
            "verified".to_owned(),
            BooleanSchema::new()
                .description("Verification status")
                .default(true)
                .into(),
        ),
    ]);
    let schema = ElicitRequestFormParamsRequestedSchema::new(fields).required(Vec::new());
    ElicitRequestFormParams::new(
        "Please review and update the form fields with defaults",
        schema,
    )
}

/// The form of SEP-1330: single-select untitled, titled and legacy (`enumNames`), and
/// multi-select untitled and titled.
fn enums_form() -> ElicitRequestFormParams {
    let strings = |xs: &[&str]| xs.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let titled = |options: &[(&str, &str)]| {
        options
            .iter()
            .map(|(value, title)| TitledEnumOption::new(*value, *title))
            .collect::<Vec<_>>()
    };
    let options = strings(&["option1", "option2", "option3"]);
    let fields = BTreeMap::from([
        (
            "untitledSingle".to_owned(),
            single_select(
                UntitledSingleSelectEnumSchema::new(options.clone())
                    .description("Select one option"),
            ),
        ),
        (
            "titledSingle".to_owned(),
            single_select(
                TitledSingleSelectEnumSchema::new(titled(&[
                    ("value1", "First Option"),
                    ("value2", "Second Option"),
                    ("value3", "Third Option"),
                ]))
                .description("Select one option with titles"),
            ),
        ),
        (
            "legacyEnum".to_owned(),
            enumerated(
                LegacyTitledEnumSchema::new(strings(&["opt1", "opt2", "opt3"]))
                    .description("Select one option (legacy)")
                    .enum_names(strings(&["Option One", "Option Two", "Option Three"])),
            ),
        ),
        (
            "untitledMulti".to_owned(),
            multi_select(
                UntitledMultiSelectEnumSchema::new(UntitledMultiSelectEnumSchemaItems::new(
                    options,
                ))
                .description("Select multiple options")
                .min_items(1)
                .max_items(3),
            ),
        ),
        (
            "titledMulti".to_owned(),
            multi_select(
                TitledMultiSelectEnumSchema::new(TitledMultiSelectEnumSchemaItems::new(titled(&[
                    ("value1", "First Choice"),
                    ("value2", "Second Choice"),
                    ("value3", "Third Choice"),
                ])))
                .description("Select multiple options with titles")
                .min_items(1)
                .max_items(3),
            ),
        ),
    ]);
    let schema = ElicitRequestFormParamsRequestedSchema::new(fields).required(Vec::new());
    ElicitRequestFormParams::new("Please select options from the enum fields", schema)
}

/// What the user did with a form: `action=accept, content={...}`.
fn describe(result: &ElicitResult) -> String {
    let content = match &result.content {
        Some(fields) => serde_json::to_string(fields).unwrap_or_else(|e| format!("({e})")),
        None => "{}".to_owned(),
    };
    format!("action={}, content={content}", result.action.as_str())
}

fn single_select(schema: impl Into<SingleSelectEnumSchema>) -> PrimitiveSchemaDefinition {
    enumerated(EnumSchema::from(schema.into()))
}

fn multi_select(schema: impl Into<MultiSelectEnumSchema>) -> PrimitiveSchemaDefinition {
    enumerated(EnumSchema::from(schema.into()))
}

fn enumerated(schema: impl Into<EnumSchema>) -> PrimitiveSchemaDefinition {
    PrimitiveSchemaDefinition::from(schema.into())
}

/// An input schema with one required string argument.
fn one_string_argument(name: &str, description: &str) -> ToolInputSchema {
    ToolInputSchema::new()
        .properties(properties([(
            name,
            json!({"type": "string", "description": description}),
        )]))
        .required(vec![name.to_owned()])
}

/// The `properties` of an input schema, each property's schema given as a JSON object.
fn properties<const N: usize>(
    entries: [(&str, Value); N],
) -> BTreeMap<String, BTreeMap<String, RawJson>> {
    entries
        .into_iter()
        .map(|(name, schema)| {
            let keywords = match schema {
                Value::Object(keywords) => {
                    keywords.iter().map(|(k, v)| (k.clone(), raw(v))).collect()
                }
                _ => BTreeMap::new(),
            };
            (name.to_owned(), keywords)
        })
        .collect()
}

/// A JSON value as raw JSON.
fn raw(value: &Value) -> RawJson {
    RawJson::from_value(value).unwrap_or_else(|_| RawJson::null())
}

fn text(text: impl Into<String>) -> ContentBlock {
    TextContent::new(text).into()
}

fn image() -> ImageContent {
    ImageContent::new(media::PNG, media::PNG_MIME)
}

fn embedded(contents: TextResourceContents) -> ContentBlock {
    EmbeddedResource::new(contents).into()
}
