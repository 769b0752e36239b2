//! The resources: what `resources/list`, `resources/templates/list` and `resources/read`
//! answer, as the conformance suite's resource scenarios expect them
//! (`src/scenarios/server/resources.ts`): a text resource, a binary one, one to watch, and the
//! template `test://template/{id}/data`.
//!
//! A URI no resource or template has is refused with MCP's `Resource not found` (-32002), its
//! URI in the error's data, for a read and for a subscription alike.

use crate::media;
use contracts::mcp::{
    BlobResourceContents, ErrorCode, JsonRpcError, ReadResourceResult, Resource,
    ResourceContentsVariant, ResourceTemplate, TextResourceContents,
};
use contracts::wire::RawJson;
use serde_json::json;

/// MCP's error code for a URI the server has no resource for (the resources page of the
/// specification, "Error Handling"; not in the schema, whose codes are JSON-RPC's).
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The URI of the resource a client may subscribe to.
pub const WATCHED: &str = "test://watched-resource";

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const TEMPLATE: &str = "test://template/{id}/data";
const TEXT_PLAIN: &str = "text/plain";
const JSON: &str = "application/json";

/// Every resource, as `resources/list` lists them.
pub fn list() -> Vec<Resource> {
    vec![
        Resource::new("static-text", STATIC_TEXT)
            .title("Static Text Resource")
            .description("A static text resource for testing")
            .mime_type(TEXT_PLAIN),
        Resource::new("static-binary", STATIC_BINARY)
            .title("Static Binary Resource")
            .description("A static binary resource (image) for testing")
            .mime_type(media::PNG_MIME),
        Resource::new("watched-resource", WATCHED)
            .title("Watched Resource")
            .description("A resource a client may subscribe to")
            .mime_type(TEXT_PLAIN),
    ]
}

/// Every resource template, as `resources/templates/list` lists them.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("template", TEMPLATE)
            .title("Resource Template")
            .description("A resource template with parameter substitution")
            .mime_type(JSON),
    ]
}

/// The contents of `uri`: a listed resource, or the template's with its `{id}` filled in.
pub fn read(uri: &str) -> Result<ReadResourceResult, JsonRpcError> {
    let contents: ResourceContentsVariant = match uri {
        STATIC_TEXT => {
            TextResourceContents::new(uri, "This is the content of the static text resource.")
                .mime_type(TEXT_PLAIN)
                .into()
        }
        STATIC_BINARY => BlobResourceContents::new(uri, media::PNG)
            .mime_type(media::PNG_MIME)
            .into(),
        WATCHED => TextResourceContents::new(uri, "Watched resource content")
            .mime_type(TEXT_PLAIN)
            .into(),
        _ => match template_id(uri) {
            Some(id) => {
                let data =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                TextResourceContents::new(uri, data.to_string())
                    .mime_type(JSON)
                    .into()
            }
            None => return Err(not_found(uri)),
        },
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// Whether `uri` names a resource the server can read.
pub fn exists(uri: &str) -> bool {
    matches!(uri, STATIC_TEXT | STATIC_BINARY | WATCHED) || template_id(uri).is_some()
}

/// The `{id}` of a URI the template makes: one non-empty path segment.
pub fn template_id(uri: &str) -> Option<&str> {
    let (prefix, suffix) = TEMPLATE.split_once("{id}")?;
    let id = uri.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// MCP's refusal of a URI no resource has.
pub fn not_found(uri: &str) -> JsonRpcError {
    let error = JsonRpcError::new(ErrorCode::Other(RESOURCE_NOT_FOUND), "Resource not found");
    match RawJson::from_value(&json!({ "uri": uri })) {
        Ok(data) => error.data(data),
        Err(_) => error,
    }
}
