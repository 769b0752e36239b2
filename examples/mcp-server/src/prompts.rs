//! The prompts: what `prompts/list` and `prompts/get` answer, as the conformance suite's
//! prompt scenarios expect them (`src/scenarios/server/prompts.ts`), and `completion/complete`
//! for their arguments and the resource template's `{id}`.
//!
//! A name no prompt has, and a required argument missing, are invalid params (-32602), as
//! MCP's prompts page says.

use crate::{media, resources};
use contracts::mcp::{
    CompleteRequestParams, CompleteResult, CompleteResultCompletion, CompletionReference,
    ContentBlock, EmbeddedResource, ErrorCode, GetPromptRequestParams, GetPromptResult,
    ImageContent, JsonRpcError, Prompt as PromptDef, PromptArgument, PromptMessage, Role,
    TextContent, TextResourceContents,
};
use contracts::wire::Decode;

/// Every prompt, in the order `prompts/list` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prompt {
    /// `test_simple_prompt`: one text message, no arguments.
    Simple,
    /// `test_prompt_with_arguments`: `arg1` and `arg2` substituted into its text.
    WithArguments,
    /// `test_prompt_with_embedded_resource`: the resource `resourceUri` embedded.
    WithEmbeddedResource,
    /// `test_prompt_with_image`: a PNG image, then text.
    WithImage,
}

/// The most values one completion answers (MCP's limit).
const MAX_COMPLETIONS: usize = 100;

impl Prompt {
    /// Every prompt, in order.
    pub const ALL: [Prompt; 4] = [
        Prompt::Simple,
        Prompt::WithArguments,
        Prompt::WithEmbeddedResource,
        Prompt::WithImage,
    ];

    /// The prompt's name.
    pub fn name(self) -> &'static str {
        match self {
            Prompt::Simple => "test_simple_prompt",
            Prompt::WithArguments => "test_prompt_with_arguments",
            Prompt::WithEmbeddedResource => "test_prompt_with_embedded_resource",
            Prompt::WithImage => "test_prompt_with_image",
        }
    }

    /// The prompt called `name`, if any.
    pub fn named(name: &str) -> Option<Prompt> {
        Prompt::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The prompt's arguments (all required): name, description, and the values
    /// `completion/complete` offers for it.
    fn arguments(self) -> &'static [(&'static str, &'static str, &'static [&'static str])] {
        match self {
            Prompt::Simple | Prompt::WithImage => &[],
            Prompt::WithArguments => &[
                ("arg1", "First test argument", &["paris", "park", "party"]),
                ("arg2", "Second test argument", &["hello", "help", "world"]),
            ],
            Prompt::WithEmbeddedResource => &[(
                "resourceUri",
                "URI of the resource to embed",
                &["test://static-text", "test://watched-resource"],
            )],
        }
    }

    /// The prompt's title and description.
    fn title_and_description(self) -> (&'static str, &'static str) {
        match self {
            Prompt::Simple => ("Simple Test Prompt", "A simple prompt without arguments"),
            Prompt::WithArguments => ("Prompt With Arguments", "A prompt with required arguments"),
            Prompt::WithEmbeddedResource => (
                "Prompt With Embedded Resource",
                "A prompt that includes an embedded resource",
            ),
            Prompt::WithImage => ("Prompt With Image", "A prompt that includes image content"),
        }
    }

    /// The prompt as `prompts/list` lists it.
    pub fn definition(self) -> PromptDef {
        let (title, description) = self.title_and_description();
        let prompt = PromptDef::new(self.name())
            .title(title)
            .description(description);
        let arguments: Vec<PromptArgument> = self
            .arguments()
            .iter()
            .map(|(name, description, _)| {
                PromptArgument::new(*name)
                    .description(*description)
                    .required(true)
            })
            .collect();
        if arguments.is_empty() {
            prompt
        } else {
            prompt.arguments(arguments)
        }
    }

    /// The prompt's messages with `params.arguments` filled in.
    fn messages(self, params: &GetPromptRequestParams) -> Result<Vec<PromptMessage>, JsonRpcError> {
        let arg = |name: &str| {
            params
                .arguments
                .as_ref()
                .and_then(|args| args.get(name))
                .ok_or_else(|| {
                    invalid(format!(
                        "prompt {} needs the argument `{name}`",
                        self.name()
                    ))
                })
        };
        let user = |content: ContentBlock| PromptMessage::new(Role::User, content);
        Ok(match self {
            Prompt::Simple => vec![user(text("This is a simple prompt for testing."))],
            Prompt::WithArguments => {
                let (arg1, arg2) = (arg("arg1")?, arg("arg2")?);
                vec![user(text(format!(
                    "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
                )))]
            }
            Prompt::WithEmbeddedResource => {
                let uri = arg("resourceUri")?;
                let contents = TextResourceContents::new(
                    uri.as_str(),
                    "Embedded resource content for testing.",
                )
                .mime_type("text/plain");
                let contents = as_read(contents, "resourceUri")?;
                vec![
                    user(EmbeddedResource::new(contents).into()),
                    user(text("Please process the embedded resource above.")),
                ]
            }
            Prompt::WithImage => vec![
                user(ImageContent::new(media::PNG, media::PNG_MIME).into()),
                user(text("Please analyze the image above.")),
            ],
        })
    }
}

/// Every prompt as `prompts/list` lists it.
pub fn list() -> Vec<PromptDef> {
    Prompt::ALL.into_iter().map(Prompt::definition).collect()
}

/// The prompt `params.name` with its arguments filled in.
pub fn get(params: &GetPromptRequestParams) -> Result<GetPromptResult, JsonRpcError> {
    let prompt = Prompt::named(&params.name)
        .ok_or_else(|| invalid(format!("Unknown prompt: {}", params.name)))?;
    let (_, description) = prompt.title_and_description();
    Ok(GetPromptResult::new(prompt.messages(params)?).description(description))
}

/// The values that complete `params.argument` of a prompt or of the resource template: those
/// its candidates hold that start with what was typed.
pub fn complete(params: &CompleteRequestParams) -> Result<CompleteResult, JsonRpcError> {
    let argument = params.argument.name.as_str();
    let candidates: &[&str] = match &params.r#ref {
        CompletionReference::PromptReference(r) => {
            let prompt = Prompt::named(&r.name)
                .ok_or_else(|| invalid(format!("Unknown prompt: {}", r.name)))?;
            prompt
                .arguments()
                .iter()
                .find(|(name, _, _)| *name == argument)
                .map(|(_, _, values)| *values)
                .ok_or_else(|| invalid(format!("prompt {} has no argument `{argument}`", r.name)))?
        }
        CompletionReference::ResourceTemplateReference(r) => {
            let template = resources::templates()
                .into_iter()
                .find(|t| t.uri_template == r.uri)
                .ok_or_else(|| invalid(format!("Unknown resource template: {}", r.uri)))?;
            if argument != "id" {
                return Err(invalid(format!(
                    "template {} has no variable `{argument}`",
                    template.uri_template
                )));
            }
            &["1", "2", "3", "123"]
        }
        _ => return Err(invalid("an unknown kind of reference".into())),
    };
    let typed = params.argument.value.as_str();
    let matching: Vec<String> = candidates
        .iter()
        .filter(|c| c.starts_with(typed))
        .map(|c| (*c).to_owned())
        .collect();
    let total = matching.len();
    let values: Vec<String> = matching.into_iter().take(MAX_COMPLETIONS).collect();
    let has_more = total > values.len();
    let completion = CompleteResultCompletion::new(values)
        .total(i64::try_from(total).unwrap_or(i64::MAX))
        .has_more(has_more);
    Ok(CompleteResult::new(completion))
}

fn text(text: impl Into<String>) -> ContentBlock {
    TextContent::new(text).into()
}

/// `value` as the client will read it: checked by its type's rules (a resource's URI has a
/// scheme), a value that breaks one refused as invalid params naming the argument it came from.
fn as_read<T: Decode + serde::Serialize>(value: T, argument: &str) -> Result<T, JsonRpcError> {
    let text = serde_json::to_string(&value)
        .map_err(|e| JsonRpcError::new(ErrorCode::InternalError, e.to_string()))?;
    contracts::wire::from_str::<T>(&text)
        .map_err(|e| invalid(format!("argument `{argument}` does not fit: {e}")))
}

fn invalid(message: String) -> JsonRpcError {
    JsonRpcError::new(ErrorCode::InvalidParams, message)
}
