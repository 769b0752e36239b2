//! A hand-built model that exercises every construct the TypeScript, JSON Schema and Markdown
//! emitters know: aliases with limits, structs with optional/nullable/default fields, closed,
//! open and legacy enums, tagged and untagged unions, literals, arrays, maps, unknown, a
//! recursive type, modules, deprecation, request and event tables, and `#[table]` frames.

use contracts_codegen::model::*;

fn loc() -> Loc {
    Loc::builtin()
}

fn docs(s: &str) -> Docs {
    if s.is_empty() {
        Docs::default()
    } else {
        Docs(s.lines().map(str::to_owned).collect())
    }
}

pub fn ty(kind: TyKind) -> Ty {
    Ty { kind, loc: loc() }
}

pub fn r(name: &str) -> Ty {
    ty(TyKind::Ref(TypeRef {
        name: name.to_owned(),
        protocol: None,
    }))
}

pub fn string(min: Option<u64>, max: Option<u64>) -> Ty {
    ty(TyKind::String(Limits { min, max }, None))
}

pub fn int(min: Option<i64>, max: Option<i64>) -> Ty {
    ty(TyKind::Int(Limits { min, max }, Width::Safe))
}

pub fn field(name: &str, d: &str, optional: bool, t: Ty) -> Field {
    Field {
        name: name.to_owned(),
        docs: docs(d),
        meta: Meta::default(),
        loc: loc(),
        optional,
        default: None,
        ty: t,
    }
}

/// `#[table = "requests[type]"]` on a field.
fn table_field(mut f: Field, table: TableKind, key: &str) -> Field {
    f.meta.table = Some(TableKey {
        table,
        key: key.to_owned(),
    });
    f
}

fn def(name: &str, d: &str, module: Option<&str>, kind: TypeDefKind) -> TypeDef {
    TypeDef {
        name: name.to_owned(),
        docs: docs(d),
        meta: Meta::default(),
        loc: loc(),
        module: module.map(str::to_owned),
        synthetic: false,
        kind,
    }
}

fn strukt(name: &str, d: &str, fields: Vec<Field>) -> TypeDef {
    def(
        name,
        d,
        None,
        TypeDefKind::Struct(Struct {
            fields,
            rest: None,
            includes: Vec::new(),
        }),
    )
}

fn value(v: &str, d: &str) -> EnumValue {
    EnumValue {
        value: EnumLit::Str(v.to_owned()),
        docs: docs(d),
        meta: Meta::default(),
        loc: loc(),
    }
}

fn int_value(name: &str, value: i64, d: &str) -> EnumValue {
    EnumValue {
        value: EnumLit::Int {
            name: name.to_owned(),
            value,
        },
        docs: docs(d),
        meta: Meta::default(),
        loc: loc(),
    }
}

fn variant(tag: Option<&str>, d: &str, t: Ty) -> Variant {
    Variant {
        tag: tag.map(str::to_owned),
        name: None,
        docs: docs(d),
        meta: Meta::default(),
        loc: loc(),
        ty: t,
    }
}

/// The fixture model: a miniature agent protocol.
#[allow(clippy::vec_init_then_push)] // one push per type reads like the schema
pub fn model() -> Model {
    let mut types = Vec::new();
    types.push(def(
        "ChatId",
        "A chat's id, as the host made it.",
        None,
        TypeDefKind::Alias(string(Some(1), None)),
    ));
    types.push(def(
        "Seq",
        "A sequence number.",
        None,
        TypeDefKind::Alias(int(Some(0), None)),
    ));
    types.push(strukt(
        "Request",
        "A request frame: `{ id, type, payload }`.",
        vec![
            field("id", "Chosen by the client.", false, string(Some(1), None)),
            field("type", "", false, string(Some(1), None)),
            field("trace", "A trace id.", true, string(None, Some(64))),
            table_field(
                field("payload", "Any JSON, present.", false, ty(TyKind::Unknown)),
                TableKind::Requests,
                "type",
            ),
        ],
    ));
    types.push(strukt(
        "ReplyOk",
        "A success.",
        vec![
            field("id", "", false, string(Some(1), None)),
            field("ok", "", false, ty(TyKind::Literal(Literal::Bool(true)))),
            field("result", "", false, ty(TyKind::Unknown)),
        ],
    ));
    types.push(strukt(
        "ReplyError",
        "A failure.",
        vec![
            field(
                "id",
                "",
                false,
                ty(TyKind::Nullable(Box::new(string(Some(1), None)))),
            ),
            field("ok", "", false, ty(TyKind::Literal(Literal::Bool(false)))),
            field("error", "", false, r("WireError")),
        ],
    ));
    types.push(strukt(
        "EventFrame",
        "An event frame.",
        vec![
            field(
                "type",
                "",
                false,
                ty(TyKind::Literal(Literal::String("event".into()))),
            ),
            field("event", "", false, string(Some(1), None)),
            table_field(
                field("payload", "", false, ty(TyKind::Unknown)),
                TableKind::Events,
                "event",
            ),
            // A field of a named type: its typed entries extend the frame's schema.
            field("seq", "", true, r("Seq")),
        ],
    ));
    types.push(def(
        "ServerFrame",
        "Everything a host sends, tried in order.",
        None,
        TypeDefKind::Union(Union {
            tag: UnionTag::Untagged,
            variants: vec![
                variant(None, "", r("ReplyOk")),
                variant(None, "", r("ReplyError")),
                variant(None, "", r("EventFrame")),
            ],
        }),
    ));
    // Untagged unions picked by literal keys: an int literal, a required and an optional
    // literal, a variant without any (the pick stops there), and a union whose first variant
    // has none (no pick at all).
    let int_lit = |i| ty(TyKind::Literal(Literal::Int(i)));
    types.push(strukt(
        "Circle",
        "A circle.",
        vec![
            field("kind", "", false, int_lit(1)),
            field("radius", "", false, int(Some(0), None)),
        ],
    ));
    types.push(strukt(
        "Square",
        "A square.",
        vec![
            field("kind", "", false, int_lit(2)),
            field("side", "", false, int(Some(0), None)),
            field("marked", "", true, ty(TyKind::Literal(Literal::Bool(true)))),
        ],
    ));
    types.push(strukt(
        "Blob",
        "Anything with a size.",
        vec![field("size", "", false, int(Some(0), None))],
    ));
    let untagged = |variants: &[&str]| {
        TypeDefKind::Union(Union {
            tag: UnionTag::Untagged,
            variants: variants.iter().map(|v| variant(None, "", r(v))).collect(),
        })
    };
    types.push(def(
        "Shape",
        "A shape, tried in order.",
        None,
        untagged(&["Circle", "Square", "Blob", "Circle"]),
    ));
    types.push(def(
        "Loose",
        "A blob first: nothing to pick by.",
        None,
        untagged(&["Blob", "Circle"]),
    ));
    types.push(strukt(
        "WireError",
        "What went wrong.",
        vec![
            field("code", "", false, r("ErrorCode")),
            field(
                "message",
                "For a person to read.",
                false,
                ty(TyKind::String(Limits::none(), None)),
            ),
        ],
    ));
    types.push(def(
        "ErrorCode",
        "The codes a host answers with.",
        None,
        TypeDefKind::Enum(Enum {
            open: true,
            extends: None,
            values: vec![
                value("chat-unsupported", "Not done here."),
                value("history-expired", ""),
            ],
        }),
    ));
    types.push(strukt("Empty", "`{}`.", vec![]));
    types.push(def(
        "ChatState",
        "Where a chat stands.",
        None,
        TypeDefKind::Enum(Enum {
            open: false,
            extends: None,
            values: vec![value("idle", "Nothing running."), value("running", "")],
        }),
    ));
    let mut hint = int_value("Hint", 4, "");
    hint.meta.deprecated = Some(String::new());
    types.push(def(
        "Severity",
        "How bad a diagnostic is: an integer enum.",
        None,
        TypeDefKind::Enum(Enum {
            open: false,
            extends: None,
            values: vec![
                int_value("Error", 1, "Reports an error."),
                int_value("Warning", 2, ""),
                hint,
            ],
        }),
    ));
    types.push(def(
        "RpcCode",
        "JSON-RPC's codes; servers add their own.",
        None,
        TypeDefKind::Enum(Enum {
            open: true,
            extends: None,
            values: vec![
                int_value("ParseError", -32700, "Invalid JSON."),
                int_value("InternalError", -32603, ""),
            ],
        }),
    ));
    let mut legacy = value("host-task", "The host that opened it.");
    legacy.meta.legacy = true;
    types.push(def(
        "Origin",
        "Who opened a subagent.",
        None,
        TypeDefKind::Enum(Enum {
            open: false,
            extends: None,
            values: vec![value("chat", ""), legacy],
        }),
    ));
    let mut deprecated_field = field(
        "title",
        "The title. */ not a comment end",
        true,
        ty(TyKind::String(Limits::none(), None)),
    );
    deprecated_field.meta.deprecated = Some("use name".into());
    let mut lines = field("lines", "Lines of context.", true, int(Some(0), Some(1000)));
    lines.default = Some(serde_json::json!(40));
    let mut opened_by = field("openedBy", "Who opened it.", true, r("Origin"));
    opened_by.default = Some(serde_json::json!("chat"));
    types.push(strukt(
        "ChatInfo",
        "The chat's whole state.",
        vec![
            field("chatId", "", false, r("ChatId")),
            deprecated_field,
            field("state", "", false, r("ChatState")),
            opened_by,
            field(
                "parent",
                "",
                false,
                ty(TyKind::Nullable(Box::new(r("ChatId")))),
            ),
            field(
                "note",
                "",
                true,
                ty(TyKind::Nullable(Box::new(ty(TyKind::String(
                    Limits::none(),
                    None,
                ))))),
            ),
            field(
                "labels",
                "",
                false,
                ty(TyKind::Map(Box::new(ty(TyKind::String(
                    Limits::none(),
                    None,
                ))))),
            ),
            field(
                "tags",
                "",
                true,
                ty(TyKind::Array(
                    Box::new(string(Some(1), Some(64))),
                    Limits {
                        min: Some(1),
                        max: Some(500),
                    },
                )),
            ),
            lines,
            field("x-odd-key", "", true, ty(TyKind::Boolean)),
            field(
                "cost",
                "",
                true,
                ty(TyKind::Number(Limits {
                    min: Some(0),
                    max: None,
                })),
            ),
            field("origin", "", false, r("Origin")),
        ],
    ));
    types.push(strukt(
        "ChatEventItem",
        "",
        vec![field("item", "", false, r("Node"))],
    ));
    types.push(strukt(
        "ChatEventDelta",
        "",
        vec![
            field("itemId", "", false, r("ChatId")),
            field("text", "", false, ty(TyKind::String(Limits::none(), None))),
        ],
    ));
    let mut deprecated_variant = variant(Some("delta"), "Append text.", r("ChatEventDelta"));
    deprecated_variant.meta.deprecated = Some(String::new());
    types.push(def(
        "ChatEvent",
        "One change to a thread.",
        None,
        TypeDefKind::Union(Union {
            tag: UnionTag::Tagged {
                field: "type".into(),
                loc: loc(),
            },
            variants: vec![
                variant(Some("item"), "Insert or replace.", r("ChatEventItem")),
                deprecated_variant,
            ],
        }),
    ));
    types.push(strukt(
        "Node",
        "A recursive tree.",
        vec![
            field("name", "", false, ty(TyKind::String(Limits::none(), None))),
            field(
                "children",
                "",
                true,
                ty(TyKind::Array(Box::new(r("Node")), Limits::none())),
            ),
        ],
    ));
    types.push(strukt(
        "ChatSendPayload",
        "",
        vec![
            field("chatId", "", false, r("ChatId")),
            field("text", "", false, string(None, Some(16000))),
        ],
    ));
    types.push(strukt(
        "ChatListResult",
        "",
        vec![field(
            "chats",
            "",
            false,
            ty(TyKind::Array(Box::new(r("ChatInfo")), Limits::none())),
        )],
    ));
    types.push(strukt(
        "ChatStatusEvent",
        "",
        vec![
            field("chatId", "", false, r("ChatId")),
            field("info", "", false, r("ChatInfo")),
            field("seq", "", true, r("Seq")),
        ],
    ));
    let mut task = strukt(
        "TaskChangedEvent",
        "A task changed.",
        vec![
            field("taskId", "", false, string(Some(1), None)),
            field("chat", "", true, r("ChatId")),
        ],
    );
    task.module = Some("task".into());
    types.push(task);
    let mut dep = def(
        "OldThing",
        "Gone soon.",
        None,
        TypeDefKind::Alias(ty(TyKind::Literal(Literal::Int(1)))),
    );
    dep.meta.deprecated = Some(String::new());
    types.push(dep);

    // The schema text the locations point into.
    let text = "/// Open and read\nrequests {\n    \"chat.list\": Empty -> ChatListResult,\n}\n\n/// Send and control\nrequests {\n    \"chat.send\": ChatSendPayload -> Empty,\n    \"chat.kill\": Empty -> Empty,\n}\n";
    let file = SourceFile {
        display: "fixture/requests.contract".into(),
        absolute: "/fixture/requests.contract".into(),
        text: text.into(),
    };
    let at = |line: u32| Loc {
        file: "fixture/requests.contract".into(),
        line,
        col: 5,
    };
    let req = |name: &str, d: &str, line: u32, payload: Ty, result: Ty| Request {
        name: name.to_owned(),
        docs: docs(d),
        // The doc of the `requests` block the entry is in, as `lower` sets it.
        group: Some(
            if line < 5 {
                "Open and read"
            } else {
                "Send and control"
            }
            .to_owned(),
        ),
        meta: Meta::default(),
        loc: at(line),
        payload,
        result,
        partial: None,
        error_data: None,
    };
    let mut kill = req(
        "chat.kill",
        "Stop the chat's process.",
        9,
        r("Empty"),
        r("Empty"),
    );
    kill.meta.deprecated = Some("use chat.cancel".into());
    Model {
        name: "agent".into(),
        files: vec![file],
        types,
        requests: vec![
            req(
                "chat.list",
                "Every chat.",
                3,
                r("Empty"),
                r("ChatListResult"),
            ),
            req(
                "chat.send",
                "Send a message.",
                8,
                r("ChatSendPayload"),
                r("Empty"),
            ),
            kill,
        ],
        events: vec![Event {
            name: "chat.status".into(),
            docs: docs("The chat's whole ChatInfo."),
            meta: Meta::default(),
            loc: loc(),
            payload: r("ChatStatusEvent"),
        }],
        ..Model::default()
    }
}
