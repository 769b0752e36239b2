//! Unit tests on models built by hand (the corpus in `tests/compat` works from schema text).

use super::*;
use crate::model::*;
use std::sync::Arc;

/// The differ on two models built by hand, each analysed first.
fn diff(base: &Model, head: &Model) -> Vec<Finding> {
    super::diff(&Checked::new(base.clone()), &Checked::new(head.clone()))
}

fn loc(line: u32) -> Loc {
    Loc {
        file: Arc::from("t.contract"),
        line,
        col: 1,
    }
}

fn ty(kind: TyKind) -> Ty {
    Ty { kind, loc: loc(1) }
}

fn r(name: &str) -> Ty {
    ty(TyKind::Ref(TypeRef {
        name: name.into(),
        protocol: None,
    }))
}

fn string(max: Option<u64>) -> Ty {
    ty(TyKind::String(Limits { min: None, max }, None))
}

fn field(name: &str, optional: bool, t: Ty) -> Field {
    Field {
        name: name.into(),
        docs: Docs::default(),
        meta: Meta::default(),
        loc: loc(2),
        optional,
        default: None,
        ty: t,
    }
}

fn def(name: &str, synthetic: bool, kind: TypeDefKind) -> TypeDef {
    TypeDef {
        name: name.into(),
        docs: Docs::default(),
        meta: Meta::default(),
        loc: loc(3),
        module: None,
        synthetic,
        kind,
    }
}

fn strukt(name: &str, fields: Vec<Field>) -> TypeDef {
    def(
        name,
        false,
        TypeDefKind::Struct(Struct {
            fields,
            rest: None,
            includes: Vec::new(),
        }),
    )
}

fn enm(name: &str, values: &[&str]) -> TypeDef {
    let values = values
        .iter()
        .map(|v| EnumValue {
            value: EnumLit::Str(v.to_string()),
            docs: Docs::default(),
            meta: Meta::default(),
            loc: loc(4),
        })
        .collect();
    def(
        name,
        false,
        TypeDefKind::Enum(Enum {
            values,
            open: false,
            extends: None,
        }),
    )
}

fn request(name: &str, payload: Ty, result: Ty) -> Request {
    Request {
        group: None,
        name: name.into(),
        docs: Docs::default(),
        meta: Meta::default(),
        loc: loc(5),
        payload,
        result,
        partial: None,
        error_data: None,
    }
}

fn event(name: &str, payload: Ty) -> Event {
    Event {
        name: name.into(),
        docs: Docs::default(),
        meta: Meta::default(),
        loc: loc(6),
        payload,
    }
}

fn model(types: Vec<TypeDef>, requests: Vec<Request>, events: Vec<Event>) -> Model {
    Model {
        name: "t".into(),
        types,
        requests,
        events,
        ..Model::default()
    }
}

/// A request `go` taking `In`, answering `Out`, and an event `ev` carrying `Ev`.
fn fixture(in_enum: &[&str], ev_enum: &[&str], in_fields: Vec<Field>) -> Model {
    let mut fields = vec![field("mode", false, r("Mode"))];
    fields.extend(in_fields);
    model(
        vec![
            strukt("In", fields),
            strukt("Out", vec![field("ok", false, ty(TyKind::Boolean))]),
            strukt(
                "Ev",
                vec![
                    field("state", false, r("State")),
                    field("note", true, string(Some(10))),
                ],
            ),
            enm("Mode", in_enum),
            enm("State", ev_enum),
        ],
        vec![request("go", r("In"), r("Out"))],
        vec![event("ev", r("Ev"))],
    )
}

fn rules_of(f: &[Finding]) -> Vec<(&'static str, Level)> {
    f.iter().map(|f| (f.rule.id, f.level)).collect()
}

#[test]
fn a_model_compared_with_itself_yields_nothing() {
    let m = fixture(&["a"], &["x"], vec![]);
    assert!(diff(&m, &m).is_empty());
}

#[test]
fn enum_value_added_is_judged_by_direction() {
    let base = fixture(&["a"], &["x"], vec![]);
    let on_input = fixture(&["a", "b"], &["x"], vec![]);
    assert_eq!(
        rules_of(&diff(&base, &on_input)),
        vec![("enum-value-added", Level::Info)]
    );
    let on_output = fixture(&["a"], &["x", "y"], vec![]);
    assert_eq!(
        rules_of(&diff(&base, &on_output)),
        vec![("enum-value-added", Level::Error)]
    );
}

#[test]
fn a_removed_and_an_added_field_of_one_type_is_a_rename() {
    let base = fixture(&["a"], &["x"], vec![field("old", false, string(None))]);
    let head = fixture(&["a"], &["x"], vec![field("new", false, string(None))]);
    let f = diff(&base, &head);
    assert_eq!(rules_of(&f), vec![("field-renamed", Level::Error)]);
    assert_eq!(f[0].subject, "In.old");
}

#[test]
fn a_renamed_type_with_the_same_shape_is_only_a_rust_source_note() {
    let base = fixture(&["a"], &["x"], vec![]);
    let mut head = base.clone();
    head.types[3].name = "Mood".into();
    if let TypeDefKind::Struct(s) = &mut head.types[0].kind {
        s.fields[0].ty = r("Mood");
    }
    let f = diff(&base, &head);
    // Nothing on the wire; the Rust type's path changed.
    assert_eq!(rules_of(&f), vec![("rust-type-renamed", Level::Info)]);
    assert_eq!(f[0].subject, "Mood");
}

#[test]
fn limits_are_judged_by_direction() {
    let base = fixture(&["a"], &["x"], vec![field("q", false, string(Some(10)))]);
    let head = fixture(&["a"], &["x"], vec![field("q", false, string(Some(5)))]);
    assert_eq!(
        rules_of(&diff(&base, &head)),
        vec![("constraint-tightened", Level::Error)]
    );
    assert_eq!(
        rules_of(&diff(&head, &base)),
        vec![("constraint-loosened", Level::Info)]
    );
}

#[test]
fn a_dropped_request_is_anchored_in_its_file() {
    let base = fixture(&["a"], &["x"], vec![]);
    let mut head = base.clone();
    head.requests.clear();
    head.files.push(SourceFile {
        display: Arc::from("t.contract"),
        absolute: "t.contract".into(),
        text: String::new(),
    });
    let f = diff(&base, &head);
    assert_eq!(f[0].rule.id, "request-removed");
    // The file as a whole: no line of it is the edited one.
    assert_eq!((&*f[0].loc.file, f[0].loc.line), ("t.contract", 0));
    assert_eq!(f[0].base_loc, Some(loc(5)));
}

#[test]
fn legacy_values_can_never_be_dropped() {
    let mut base = fixture(&["a", "b"], &["x"], vec![]);
    if let TypeDefKind::Enum(e) = &mut base.types[3].kind {
        e.values[1].meta.legacy = true;
    }
    let head = fixture(&["a"], &["x"], vec![]);
    let f = diff(&base, &head);
    assert_eq!(rules_of(&f), vec![("legacy-value-removed", Level::Error)]);
    let acks = vec![Ack {
        protocol: None,
        rule: f[0].rule.id.into(),
        subject: f[0].subject.clone(),
        reason: "x".into(),
    }];
    let report = acknowledge(vec![("t".into(), f)], &acks);
    assert!(report.is_breaking());
}

#[test]
fn acknowledged_findings_do_not_fail_and_stale_entries_are_reported() {
    let base = fixture(&["a"], &["x"], vec![]);
    let head = fixture(&["a"], &["x", "y"], vec![]);
    let f = diff(&base, &head);
    let acks = vec![
        Ack {
            protocol: Some("t".into()),
            rule: "enum-value-added".into(),
            subject: f[0].subject.clone(),
            reason: "ok".into(),
        },
        Ack {
            protocol: None,
            rule: "field-removed".into(),
            subject: "Nope.x".into(),
            reason: "old".into(),
        },
        Ack {
            protocol: Some("other".into()),
            rule: "field-removed".into(),
            subject: "Nope.x".into(),
            reason: "old".into(),
        },
    ];
    let report = acknowledge(vec![("t".into(), f)], &acks);
    assert!(!report.is_breaking());
    assert_eq!(report.acknowledged(), 1);
    assert_eq!(report.stale.len(), 1);
}

#[test]
fn every_rule_has_a_hint_and_a_known_id() {
    for r in rules::RULES {
        assert!(
            r.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{}",
            r.id
        );
    }
}

/// Load one protocol from text, on top of `bases`.
fn load(name: &str, text: &str, bases: &[Arc<Model>]) -> Model {
    let file = SourceFile {
        display: Arc::from(format!("{name}/api.contract")),
        absolute: format!("{name}/api.contract").into(),
        text: text.into(),
    };
    let opts = crate::load::LoadOptions {
        bases: bases.to_vec(),
        ..Default::default()
    };
    crate::load::load_files(name, vec![file], &opts).unwrap_or_else(|e| panic!("{}", e.render()))
}

#[test]
fn a_stored_type_of_a_base_protocol_is_judged_both_ways_in_an_app() {
    let base = |field: &str| {
        Arc::new(load(
            "agent",
            &format!("#[stored]\nstruct Item {{ {field} }}\n"),
            &[],
        ))
    };
    let app = "use agent::Item;\nevents {\n    \"doc.item\": { item: Item },\n}\n";
    let (b, h) = (base("note?: string"), base("note: string"));
    let f = diff(&load("docs", app, &[b]), &load("docs", app, &[h]));
    // Only the host sends it, yet a stored record may lack the field: an error, not a warning.
    assert_eq!(rules_of(&f), vec![("optional-to-required", Level::Error)]);
    assert_eq!(f[0].direction, Direction::Both);
}

#[test]
fn gates_count_only_in_a_protocol_whose_clients_announce_what_they_accept() {
    let events = |gated: bool| {
        let extra = if gated {
            "    #[accepts = \"closing\"]\n    \"s.closed\": S,\n"
        } else {
            ""
        };
        format!("struct S {{ a: string }}\nevents {{\n    \"s.a\": S,\n{extra}}}\n")
    };
    let hello = "struct Hello { accepts?: [string] }\nrequests {\n    \"hello\": Hello -> S,\n}\n";
    for (handshake, want) in [
        (false, ("event-added", Level::Warning)),
        (true, ("event-added-gated", Level::Info)),
    ] {
        let pre = if handshake { hello } else { "" };
        let b = load("p", &format!("{pre}{}", events(false)), &[]);
        let h = load("p", &format!("{pre}{}", events(true)), &[]);
        assert_eq!(
            rules_of(&diff(&b, &h)),
            vec![want],
            "handshake: {handshake}"
        );
    }
    // An `accepts` field the host sends announces nothing.
    let reply = "struct Hello { accepts?: [string] }\nrequests {\n    \"hello\": S -> Hello,\n}\n";
    let b = load("p", &format!("{reply}{}", events(false)), &[]);
    let h = load("p", &format!("{reply}{}", events(true)), &[]);
    assert_eq!(
        rules_of(&diff(&b, &h)),
        vec![("event-added", Level::Warning)]
    );
}

#[test]
fn a_compatible_finding_says_what_it_does_to_typescript_source() {
    let base = load("demo", "requests {\n    \"a\": {} -> {},\n}\n", &[]);
    let head = load(
        "demo",
        "requests {\n    \"a\": {} -> {},\n    \"b\": {} -> {},\n}\n",
        &[],
    );
    let f = diff(&base, &head);
    assert_eq!(rules_of(&f), vec![("request-added", Level::Info)]);
    let report = acknowledge(vec![("demo".into(), f)], &[]);
    let text = render::text(&report, &head.files, "acknowledged.json");
    // Rust keeps compiling (the by-name enums are `#[non_exhaustive]`); a `Record` over the
    // request names in TypeScript misses the new one.
    assert!(!text.contains("= note: Rust source:"), "{text}");
    assert!(
        text.contains("= note: TypeScript source: the request names"),
        "{text}"
    );
    let json = render::json(&report);
    let finding = &json["findings"][0];
    assert_eq!(finding["rust_source"], "kept");
    assert!(finding["typescript_source"]["breaks"].is_string(), "{json}");
}

#[test]
fn an_app_judges_the_base_tables_its_package_exposes() {
    let agent = |extra: &str| {
        Arc::new(load(
            "agent",
            &format!("requests {{\n    \"chat.list\": {{}} -> {{}},\n{extra}}}\n"),
            &[],
        ))
    };
    let app = "requests {\n    \"doc.read\": {} -> {},\n}\n";
    let with = agent("    \"chat.history\": { cursor: string } -> {},\n");
    let f = diff(
        &load("docs", app, std::slice::from_ref(&with)),
        &load("docs", app, &[agent("")]),
    );
    assert_eq!(rules_of(&f), vec![("request-removed", Level::Error)]);
    assert_eq!(f[0].subject, "agent::chat.history");
    // One version of the base on both sides (a published one) compares nothing.
    let same = diff(
        &load("docs", app, std::slice::from_ref(&with)),
        &load("docs", app, &[with]),
    );
    assert!(same.is_empty(), "{same:?}");
}
