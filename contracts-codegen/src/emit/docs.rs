//! emit::docs: the model to the Markdown reference (`docs/reference/<protocol>.md`).
//!
//! The reference has a table of the requests with one row per group, like the spec's, then
//! each group's requests with their docs, a table of events, each event, then every type. A
//! group is the doc comment of a `requests { }` block ([`request_groups`]; `schema/README.md`,
//! "Request groups").

use crate::analysis::Checked;
use crate::corpus::examples::{self, Example, Subject};
use crate::emit::MARKDOWN_HEADER as HEADER;
use crate::emit::json_schema::ROOTS;
use crate::flows::{self, Actor, Flow, Sent};
use crate::model::{
    Docs, EnumLit, Format, Literal, Meta, Model, Request, TableKind, Ty, TyKind, TypeDef,
    TypeDefKind, UnionTag,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The requests of a model's own table by group, in table order; a request outside any
/// documented block is in the group `""`.
pub fn request_groups(model: &Model) -> Vec<(String, Vec<&Request>)> {
    let mut out: Vec<(String, Vec<&Request>)> = Vec::new();
    for r in &model.requests {
        let g = r.group.clone().unwrap_or_default();
        match out.iter_mut().find(|(x, _)| *x == g) {
            Some((_, list)) => list.push(r),
            None => out.push((g, vec![r])),
        }
    }
    out
}

/// How the reference names the package and its tables, and what it shows beside them.
#[derive(Clone, Debug, Default)]
pub struct DocsOptions {
    /// The npm package, for the introduction (`@adecore/agent-contracts`).
    pub package_name: String,
    /// `AGENT`: the tables are `AGENT_REQUEST_SCHEMAS` and `AGENT_EVENT_SCHEMAS`.
    pub table_prefix: String,
    /// Where each base protocol's page is, relative to this page (`agent.md`,
    /// `../../../docs/reference/agent.md`): a base's types and entries link into it.
    pub base_pages: BTreeMap<String, String>,
    /// The protocol's flows (its `*.flows` files, [`crate::flows`]), drawn as sequence diagrams.
    pub flows: Vec<Flow>,
    /// The corpus file whose lines check the examples (`tests/corpus/derived/agent.jsonl`);
    /// `None`: the page shows no examples (nothing would check them).
    pub examples_corpus: Option<String>,
    /// What the page says checks the corpus, after "Every example on this page is a line of
    /// `CORPUS`, which": `None` for this repository's own (`cargo xtask test` runs it through
    /// the Rust validators, the Zod schemas and the JSON Schema).
    pub examples_checked: Option<String>,
}

/// What the page says checks its examples when the options say nothing.
pub const EXAMPLES_CHECKED: &str = "`cargo xtask test` runs through the Rust validators, the Zod schemas and the JSON Schema: each is accepted by all three.";

impl DocsOptions {
    /// A page for the package `ts` describes: its name and its tables' prefix.
    pub fn for_package(ts: &crate::emit::typescript::TsOptions) -> DocsOptions {
        DocsOptions {
            package_name: ts.package_name.clone(),
            table_prefix: ts.table_prefix.clone(),
            ..DocsOptions::default()
        }
    }

    /// The base protocol `protocol`'s page, relative to this page or a URL: its types and
    /// entries link into it.
    pub fn base_page(mut self, protocol: &str, page: &str) -> DocsOptions {
        self.base_pages.insert(protocol.to_owned(), page.to_owned());
        self
    }

    /// The page shows its examples, each a line of `corpus` (which the project writes, e.g.
    /// with `generate::Outputs::examples`), checked as `checked` says (see
    /// [`DocsOptions::examples_checked`]).
    pub fn examples(mut self, corpus: &str, checked: &str) -> DocsOptions {
        self.examples_corpus = Some(corpus.to_owned());
        self.examples_checked = Some(checked.to_owned());
        self
    }
}

/// The directory the protocol was read from, as displayed: the longest common directory of its
/// files (`schema/agent`, `examples/documents-app/schema`).
fn schema_dir(model: &Model) -> String {
    let mut dirs = model.files.iter().map(|f| {
        let parts: Vec<&str> = f.display.split('/').collect();
        parts[..parts.len().saturating_sub(1)]
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
    });
    let Some(mut common) = dirs.next() else {
        return format!("schema/{}", model.name);
    };
    for d in dirs {
        let same = common.iter().zip(&d).take_while(|(a, b)| a == b).count();
        common.truncate(same);
    }
    if common.is_empty() {
        ".".to_owned()
    } else {
        common.join("/")
    }
}

/// What a page links with: the model, the options, the examples, who uses each type.
struct Page<'a> {
    model: &'a Checked,
    options: &'a DocsOptions,
    examples: Vec<Example>,
    /// For each of this model's types, the places that use it, as Markdown links, in order.
    used_by: BTreeMap<String, Vec<String>>,
}

/// The Markdown reference of a protocol.
pub fn emit(model: &Checked, options: &DocsOptions) -> String {
    let examples = if options.examples_corpus.is_some() {
        examples::examples(model)
    } else {
        Vec::new()
    };
    let mut page = Page {
        model,
        options,
        examples,
        used_by: BTreeMap::new(),
    };
    page.used_by = page.uses();
    page.render()
}

impl Page<'_> {
    fn render(&self) -> String {
        let model = self.model;
        let options = self.options;
        let mut out = format!("{HEADER}\n\n# The `{}` protocol\n\n", model.name);
        let _ = writeln!(
            out,
            "Generated from `{}`. The TypeScript package is `{}`; the JSON Schema is its `schema.json`.\n",
            schema_dir(model),
            options.package_name
        );
        for b in &model.bases {
            let _ = writeln!(
                out,
                "Built on the {} protocol: its requests and events are in this protocol's tables too, each named with its protocol below and linked to its page.\n",
                self.base_link(&b.name, "", &format!("`{}`", b.name))
            );
        }
        let mut contents = Vec::new();
        if self.has_frames() {
            contents.push("[Frames](#frames)");
        }
        if !model.requests.is_empty() {
            contents.push("[Requests](#requests)");
        }
        if !model.events.is_empty() {
            contents.push("[Events](#events)");
        }
        if !model.bases.is_empty() {
            contents.push("[Every entry, by protocol](#every-entry)");
        }
        if !options.flows.is_empty() {
            contents.push("[Flows](#flows)");
        }
        contents.push("[Types](#types)");
        contents.push("[Index of types](#index-of-types)");
        let _ = writeln!(out, "Contents: {}.\n", contents.join(" · "));
        if let Some(corpus) = &options.examples_corpus {
            let _ = writeln!(
                out,
                "Every example on this page is a line of `{corpus}`, which {}\n",
                options
                    .examples_checked
                    .as_deref()
                    .unwrap_or(EXAMPLES_CHECKED)
            );
        }
        self.frames(&mut out);
        self.requests(&mut out);
        self.events(&mut out);
        self.every_entry(&mut out);
        self.flows(&mut out);
        self.types(&mut out);
        self.index(&mut out);
        while out.ends_with("\n\n") {
            out.pop();
        }
        out
    }

    /// Whether the protocol has frames a validator starts from.
    fn has_frames(&self) -> bool {
        ROOTS.iter().any(|n| self.find_type(n).is_some())
    }

    /// A type of this model or a base, with the protocol that declares it.
    fn find_type(&self, name: &str) -> Option<(String, &TypeDef)> {
        if let Some(t) = self.model.own_type(name) {
            return Some((self.model.name.clone(), t));
        }
        fn inner<'m>(m: &'m Model, name: &str) -> Option<(String, &'m TypeDef)> {
            for b in &m.bases {
                if let Some(t) = b.own_type(name) {
                    return Some((b.name.clone(), t));
                }
                if let Some(x) = inner(b, name) {
                    return Some(x);
                }
            }
            None
        }
        inner(self.model, name)
    }

    /// A link to a type by name, wherever it is declared.
    fn type_link(&self, name: &str) -> String {
        match self.find_type(name) {
            Some((p, _)) if p != self.model.name => self.base_link(
                &p,
                &format!("#type-{}", anchor(name)),
                &format!("`{p}::{name}`"),
            ),
            _ => format!("[`{name}`](#type-{})", anchor(name)),
        }
    }

    /// A link into a base's page (its `fragment`), or the text alone without a page for it.
    fn base_link(&self, protocol: &str, fragment: &str, text: &str) -> String {
        match self.options.base_pages.get(protocol) {
            Some(page) => format!("[{text}]({page}{fragment})"),
            None => text.to_owned(),
        }
    }

    /// The first example of `subject`.
    fn example(&self, subject: &Subject) -> Option<&Example> {
        self.examples.iter().find(|e| &e.subject == subject)
    }

    /// How an entry of `table` travels, linked: `Sent in a Request frame, answered in a
    /// ServerFrame`.
    fn travels(&self, table: TableKind) -> Option<String> {
        let (frame, _, _) = examples::table_frame(self.model, table)?;
        let server = self
            .find_type("ServerFrame")
            .map(|_| self.type_link("ServerFrame"));
        let sent = format!(
            "Sent in {} {} frame",
            article(&frame),
            self.type_link(&frame)
        );
        Some(match (table, server) {
            (TableKind::Requests, Some(s)) => format!("{sent}, answered in a {s}."),
            (TableKind::Events, Some(s)) => format!("{sent}, one of a {s}."),
            (_, None) => format!("{sent}."),
        })
    }

    fn frames(&self, out: &mut String) {
        if !self.has_frames() {
            return;
        }
        out.push_str("## Frames\n\n");
        for (table, what) in [
            (TableKind::Requests, "A request"),
            (TableKind::Events, "An event"),
        ] {
            if let Some((ty, field, key)) = examples::table_frame(self.model, table) {
                let _ = writeln!(
                    out,
                    "{what} travels as {} {} frame: its `{key}` names the entry of the {} table, and its `{field}` holds that entry's payload.\n",
                    article(&ty),
                    self.type_link(&ty),
                    if table == TableKind::Requests {
                        "request"
                    } else {
                        "event"
                    }
                );
            }
        }
        let roots: Vec<&str> = ROOTS
            .iter()
            .copied()
            .filter(|n| self.find_type(n).is_some())
            .collect();
        let links: Vec<String> = roots.iter().map(|n| self.type_link(n)).collect();
        let anchors: Vec<String> = roots.iter().map(|n| format!("`schema.json#{n}`")).collect();
        let _ = writeln!(
            out,
            "Every frame is one of {}. In the JSON Schema the named roots {} check a frame whole, its payload by the entry it names.\n",
            or_list(&links),
            and_list(&anchors)
        );
    }

    fn requests(&self, out: &mut String) {
        let model = self.model;
        if model.requests.is_empty() {
            return;
        }
        let p = &self.options.table_prefix;
        let _ = writeln!(
            out,
            "## Requests\n\n`{p}_REQUEST_SCHEMAS` maps every request name to `{{ payload, result }}`.\n"
        );
        let groups = request_groups(model);
        out.push_str("| Group | Requests |\n|---|---|\n");
        for (g, list) in &groups {
            let names: Vec<String> = list
                .iter()
                .map(|r| {
                    format!(
                        "[`{}`](#request-{}){}",
                        r.name,
                        anchor(&r.name),
                        deprecated_mark(&r.meta)
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} |",
                cell(if g.is_empty() { "Other" } else { g }),
                names.join(", ")
            );
        }
        out.push('\n');
        for (g, list) in &groups {
            let _ = writeln!(out, "### {}\n", if g.is_empty() { "Other" } else { g });
            for r in list {
                let _ = writeln!(
                    out,
                    "<a id=\"request-{}\"></a>\n#### `{}`\n",
                    anchor(&r.name),
                    r.name
                );
                paragraph(out, &r.docs, &r.meta);
                let _ = writeln!(
                    out,
                    "- Payload: {}\n- Result: {}",
                    self.ty(&r.payload),
                    self.ty(&r.result)
                );
                if r.sender() != crate::model::Direction::ClientToServer {
                    let who = match r.sender() {
                        crate::model::Direction::ServerToClient => {
                            "the host (the client answers it)"
                        }
                        _ => "either side",
                    };
                    let _ = writeln!(out, "- Sent by: {who}");
                }
                for (attr, t) in r.metadata() {
                    let what = if attr == "partial" {
                        "Partial result (sent before the result, a part at a time)"
                    } else {
                        "Error data (a failure's `data`)"
                    };
                    let _ = writeln!(out, "- {what}: {}", self.ty(t));
                }
                if let Some(line) = self.travels(TableKind::Requests) {
                    let _ = writeln!(out, "- {line}");
                }
                out.push('\n');
                self.request_examples(out, r);
            }
        }
    }

    fn request_examples(&self, out: &mut String, r: &Request) {
        if self.options.examples_corpus.is_none() {
            return;
        }
        let frame = self.example(&Subject::EntryFrame {
            kind: "request".into(),
            name: r.name.clone(),
        });
        let payload = self.example(&Subject::Payload(r.name.clone()));
        let result = self.example(&Subject::Result(r.name.clone()));
        match (frame, payload) {
            (Some(f), _) => {
                out.push_str("The request:\n\n");
                json_block(out, &f.shown);
            }
            (None, Some(p)) => {
                out.push_str("A payload:\n\n");
                json_block(out, &p.shown);
            }
            _ => {}
        }
        if let Some(res) = result {
            let reply = examples::reply_ok(self.model, "1", res.shown.clone());
            match reply {
                Some(reply) => {
                    out.push_str("Its answer:\n\n");
                    json_block(out, &reply);
                }
                None => {
                    out.push_str("A result:\n\n");
                    json_block(out, &res.shown);
                }
            }
        }
    }

    fn events(&self, out: &mut String) {
        let model = self.model;
        if model.events.is_empty() {
            return;
        }
        let p = &self.options.table_prefix;
        let _ = writeln!(
            out,
            "## Events\n\n`{p}_EVENT_SCHEMAS` maps every event name to its payload schema.\n"
        );
        out.push_str("| Event | Payload | What it says |\n|---|---|---|\n");
        for e in &model.events {
            let _ = writeln!(
                out,
                "| [`{}`](#event-{}){} | {} | {} |",
                e.name,
                anchor(&e.name),
                deprecated_mark(&e.meta),
                self.ty(&e.payload),
                cell(&first_sentence(&e.docs))
            );
        }
        out.push('\n');
        for e in &model.events {
            let _ = writeln!(
                out,
                "<a id=\"event-{}\"></a>\n### `{}`\n",
                anchor(&e.name),
                e.name
            );
            paragraph(out, &e.docs, &e.meta);
            let _ = writeln!(out, "- Payload: {}", self.ty(&e.payload));
            if e.sender() != crate::model::Direction::ServerToClient {
                let who = match e.sender() {
                    crate::model::Direction::ClientToServer => "the client (the host hears it)",
                    _ => "either side",
                };
                let _ = writeln!(out, "- Sent by: {who}");
            }
            if let Some(line) = self.travels(TableKind::Events) {
                let _ = writeln!(out, "- {line}");
            }
            out.push('\n');
            let frame = self.example(&Subject::EntryFrame {
                kind: "server".into(),
                name: e.name.clone(),
            });
            if let Some(f) = frame.or_else(|| self.example(&Subject::Event(e.name.clone()))) {
                out.push_str("The event:\n\n");
                json_block(out, &f.shown);
            }
        }
    }

    /// An app's page: every entry of its composed tables, with the protocol it comes from.
    fn every_entry(&self, out: &mut String) {
        let model = self.model;
        if model.bases.is_empty() {
            return;
        }
        out.push_str("<a id=\"every-entry\"></a>\n## Every entry, by protocol\n\n");
        let _ = writeln!(
            out,
            "The tables of this protocol hold its own entries and its bases', in this order. `{}_REQUEST_SCHEMAS` and `{}_EVENT_SCHEMAS` hold them all.\n",
            self.options.table_prefix, self.options.table_prefix
        );
        out.push_str("| Request | Protocol | Payload | Result |\n|---|---|---|---|\n");
        for (m, r) in model.all_requests() {
            let _ = writeln!(
                out,
                "| {}{} | {} | {} | {} |",
                self.entry_link(m, "request", &r.name),
                deprecated_mark(&r.meta),
                self.protocol_cell(m),
                self.ty_in(m, &r.payload),
                self.ty_in(m, &r.result)
            );
        }
        out.push('\n');
        out.push_str("| Event | Protocol | Payload |\n|---|---|---|\n");
        for (m, e) in model.all_events() {
            let _ = writeln!(
                out,
                "| {}{} | {} | {} |",
                self.entry_link(m, "event", &e.name),
                deprecated_mark(&e.meta),
                self.protocol_cell(m),
                self.ty_in(m, &e.payload)
            );
        }
        out.push('\n');
    }

    fn protocol_cell(&self, m: &Model) -> String {
        if m.name == self.model.name {
            format!("`{}` (this one)", m.name)
        } else {
            self.base_link(&m.name, "", &format!("`{}`", m.name))
        }
    }

    /// A link to a request or event, on this page or its base's.
    fn entry_link(&self, m: &Model, kind: &str, name: &str) -> String {
        let fragment = format!("#{kind}-{}", anchor(name));
        if m.name == self.model.name {
            format!("[`{name}`]({fragment})")
        } else {
            self.base_link(&m.name, &fragment, &format!("`{name}`"))
        }
    }

    fn flows(&self, out: &mut String) {
        if self.options.flows.is_empty() {
            return;
        }
        out.push_str("## Flows\n\n");
        let _ = writeln!(
            out,
            "Each flow is declared in a `*.flows` file beside the schema; every frame of it is a line of {}, checked like the examples.\n",
            self.options
                .examples_corpus
                .as_deref()
                .map_or("the derived corpus".to_owned(), |c| format!("`{c}`"))
        );
        for f in &self.options.flows {
            let _ = writeln!(
                out,
                "<a id=\"flow-{}\"></a>\n### {}\n",
                anchor(&f.name),
                f.title
            );
            if !f.description.trim().is_empty() {
                let _ = writeln!(out, "{}\n", f.description.trim());
            }
            let _ = writeln!(out, "```mermaid\n{}```\n", flows::mermaid(f));
            for (i, s) in f.steps.iter().enumerate() {
                let to = match &s.from {
                    Actor::Client => f
                        .steps
                        .iter()
                        .find_map(|x| match &x.from {
                            Actor::Server(_) => Some(x.from.name()),
                            Actor::Client => None,
                        })
                        .unwrap_or_else(|| "Server".into()),
                    Actor::Server(_) => "Client".into(),
                };
                let what = match &s.sent {
                    Sent::Request { name, .. } => {
                        format!("the request {}", self.entry_ref("request", name))
                    }
                    Sent::Reply { name, .. } => {
                        format!("the answer to {}", self.entry_ref("request", name))
                    }
                    Sent::Error { name, code, .. } => {
                        format!("a failure of {}: `{code}`", self.entry_ref("request", name))
                    }
                    Sent::Event { name } => format!("the event {}", self.entry_ref("event", name)),
                    Sent::Frame { union, tag } => {
                        format!("{} `\"{tag}\"`", self.type_link(union))
                    }
                };
                let note = if s.note.is_empty() {
                    String::new()
                } else {
                    format!(" {}", s.note)
                };
                let _ = writeln!(
                    out,
                    "{}. {} → {}: {what}.{note}\n",
                    i + 1,
                    s.from.name(),
                    to
                );
                json_block_indented(out, &s.frame);
            }
        }
    }

    /// A link to an entry of the composed table by its kind (`request`, `event`) and name.
    fn entry_ref(&self, kind: &str, name: &str) -> String {
        let owner = if kind == "request" {
            self.model
                .all_requests()
                .into_iter()
                .find(|(_, r)| r.name == name)
                .map(|(m, _)| m)
        } else {
            self.model
                .all_events()
                .into_iter()
                .find(|(_, e)| e.name == name)
                .map(|(m, _)| m)
        };
        match owner {
            Some(m) => self.entry_link(m, kind, name),
            None => format!("`{name}`"),
        }
    }

    fn types(&self, out: &mut String) {
        let model = self.model;
        let mut modules: Vec<Option<&str>> = vec![None];
        for t in &model.types {
            if let Some(m) = t.module.as_deref()
                && !modules.contains(&Some(m))
            {
                modules.push(Some(m));
            }
        }
        if !model.consts.is_empty() {
            out.push_str("## Constants\n\n| Constant | Value | Description |\n|---|---|---|\n");
            for k in &model.consts {
                let value = match &k.value {
                    Literal::String(s) => format!("{s:?}"),
                    Literal::Bool(b) => b.to_string(),
                    Literal::Int(i) => i.to_string(),
                    Literal::Null => "null".to_owned(),
                };
                let _ = writeln!(
                    out,
                    "| `{}`{} | `{value}` | {} |",
                    k.name,
                    deprecated_mark(&k.meta),
                    cell(&describe(&k.docs, &k.meta))
                );
            }
            out.push('\n');
        }
        for m in modules {
            match m {
                None => out.push_str("## Types\n\n"),
                Some(m) => {
                    let _ = writeln!(
                        out,
                        "## Types of the `{m}` module\n\nExported from the `./{m}` subpath.\n"
                    );
                }
            }
            for t in model.types.iter().filter(|t| t.module.as_deref() == m) {
                self.typedef(out, t);
            }
        }
    }

    /// Every type of the page, by name, with its kind and who uses it.
    fn index(&self, out: &mut String) {
        out.push_str("## Index of types\n\n");
        out.push_str("| Type | Kind | Used by |\n|---|---|---|\n");
        let mut types: Vec<&TypeDef> = self.model.types.iter().collect();
        types.sort_by(|a, b| a.name.cmp(&b.name));
        for t in types {
            let used = self.used_by.get(&t.name).cloned().unwrap_or_default();
            let _ = writeln!(
                out,
                "| [`{}`](#type-{}){} | {} | {} |",
                t.name,
                anchor(&t.name),
                deprecated_mark(&t.meta),
                cell(&self.kind(t)),
                if used.is_empty() {
                    "—".to_owned()
                } else {
                    used.join(", ")
                }
            );
        }
        out.push('\n');
    }

    /// A type's kind in words.
    fn kind(&self, t: &TypeDef) -> String {
        match &t.kind {
            TypeDefKind::Alias(x) => format!("alias of {}", self.ty(x)),
            TypeDefKind::Struct(_) => "object".into(),
            TypeDefKind::Enum(e) if e.open && e.is_int() => "open integer enum".into(),
            TypeDefKind::Enum(e) if e.open => "open enum".into(),
            TypeDefKind::Enum(e) if e.is_int() => "integer enum".into(),
            TypeDefKind::Enum(_) => "enum".into(),
            TypeDefKind::Union(u) => match &u.tag {
                UnionTag::Tagged { field, .. } => format!("union on `{field}`"),
                UnionTag::Untagged => "untagged union".into(),
            },
        }
    }

    /// For every type of this model, the entries and types that use it, as links.
    fn uses(&self) -> BTreeMap<String, Vec<String>> {
        let model = self.model;
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let note = |ty: &Ty, by: String, out: &mut BTreeMap<String, Vec<String>>| {
            let mut names = BTreeSet::new();
            ty.each_ref(&mut |r| {
                if r.protocol.as_deref().is_none_or(|p| p == model.name) {
                    names.insert(r.name.clone());
                }
            });
            for n in names {
                let list = out.entry(n).or_default();
                if !list.contains(&by) {
                    list.push(by.clone());
                }
            }
        };
        for r in &model.requests {
            let link = format!("[`{}`](#request-{})", r.name, anchor(&r.name));
            note(&r.payload, link.clone(), &mut out);
            note(&r.result, link, &mut out);
        }
        for e in &model.events {
            note(
                &e.payload,
                format!("[`{}`](#event-{})", e.name, anchor(&e.name)),
                &mut out,
            );
        }
        for t in &model.types {
            let link = format!("[`{}`](#type-{})", t.name, anchor(&t.name));
            match &t.kind {
                TypeDefKind::Alias(x) => note(x, link, &mut out),
                TypeDefKind::Struct(s) => s
                    .fields
                    .iter()
                    .for_each(|f| note(&f.ty, link.clone(), &mut out)),
                TypeDefKind::Union(u) => u
                    .variants
                    .iter()
                    .for_each(|v| note(&v.ty, link.clone(), &mut out)),
                TypeDefKind::Enum(_) => {}
            }
        }
        out
    }

    fn typedef(&self, out: &mut String, t: &TypeDef) {
        let _ = writeln!(
            out,
            "<a id=\"type-{}\"></a>\n### `{}`\n",
            anchor(&t.name),
            t.name
        );
        paragraph(out, &t.docs, &t.meta);
        if let Some(used) = self.used_by.get(&t.name) {
            let _ = writeln!(out, "Used by {}.\n", used.join(", "));
        }
        match &t.kind {
            TypeDefKind::Alias(x) => {
                let _ = writeln!(out, "Alias of {}.\n", self.ty(x));
            }
            TypeDefKind::Struct(s) => {
                if !s.includes.is_empty() {
                    let names: Vec<String> = s
                        .includes
                        .iter()
                        .map(|i| format!("`{}`", i.ty.name))
                        .collect();
                    let _ = writeln!(
                        out,
                        "Includes the fields of {} (first, below).\n",
                        names.join(", ")
                    );
                }
                if s.fields.is_empty() && s.rest.is_none() {
                    out.push_str("An object with no fields of its own: `{}`.\n\n");
                } else {
                    out.push_str("| Field | Type | Description |\n|---|---|---|\n");
                    for f in &s.fields {
                        let mut t = self.ty(&f.ty);
                        if f.optional {
                            t.push_str(" (optional");
                            if let Some(d) = &f.default {
                                let _ = write!(t, ", default `{d}`");
                            }
                            t.push(')');
                        }
                        let _ = writeln!(
                            out,
                            "| `{}`{} | {} | {} |",
                            f.name,
                            deprecated_mark(&f.meta),
                            t,
                            cell(&describe(&f.docs, &f.meta))
                        );
                    }
                    if let Some(rest) = &s.rest
                        && let TyKind::Map(inner) = &rest.ty.kind
                    {
                        let mut d = rest.docs.text().trim().replace('\n', " ");
                        if d.is_empty() {
                            d = "Every other key, kept with its value (an open object).".to_owned();
                        }
                        let _ = writeln!(out, "| `..` | {} | {} |", self.ty(inner), cell(&d));
                    }
                    out.push('\n');
                }
            }
            TypeDefKind::Enum(e) => {
                let int = e.is_int();
                match (e.open, int) {
                    (true, false) => {
                        out.push_str("Open: any string is accepted. Known values:\n\n");
                    }
                    (true, true) => {
                        out.push_str("Open: any integer is accepted. Known values:\n\n");
                    }
                    (false, _) => out.push_str("Closed: any other value is refused.\n\n"),
                }
                if int {
                    out.push_str("| Value | Name | Description |\n|---|---|---|\n");
                } else {
                    out.push_str("| Value | Description |\n|---|---|\n");
                }
                for v in &e.values {
                    let mut d = describe(&v.docs, &v.meta);
                    if v.meta.legacy {
                        d.push_str(" *Legacy: read and written back, never produced.*");
                    }
                    let legacy = if v.meta.legacy { " (legacy)" } else { "" };
                    let shown = match &v.value {
                        EnumLit::Str(s) => format!("`\"{s}\"`"),
                        EnumLit::Int { name, value } => format!("`{value}` | `{name}`"),
                    };
                    let _ = writeln!(
                        out,
                        "| {shown}{legacy}{} | {} |",
                        deprecated_mark(&v.meta),
                        cell(d.trim())
                    );
                }
                out.push('\n');
            }
            TypeDefKind::Union(u) => {
                match &u.tag {
                    UnionTag::Tagged { field, .. } => {
                        let _ = writeln!(
                            out,
                            "A union on `{field}`:\n\n| `{field}` | Variant | Description |\n|---|---|---|"
                        );
                        for v in &u.variants {
                            let _ = writeln!(
                                out,
                                "| `\"{}\"`{} | {} | {} |",
                                v.tag.as_deref().unwrap_or_default(),
                                deprecated_mark(&v.meta),
                                self.ty(&v.ty),
                                cell(&describe(&v.docs, &v.meta))
                            );
                        }
                    }
                    UnionTag::Untagged => {
                        out.push_str("Tried in order; the first that accepts wins:\n\n| Variant | Description |\n|---|---|\n");
                        for v in &u.variants {
                            let _ = writeln!(
                                out,
                                "| {}{} | {} |",
                                self.ty(&v.ty),
                                deprecated_mark(&v.meta),
                                cell(&describe(&v.docs, &v.meta))
                            );
                        }
                    }
                }
                out.push('\n');
                self.variant_examples(out, t, u);
            }
        }
        if let Some(e) = self.example(&Subject::Type(t.name.clone()))
            && !matches!(t.kind, TypeDefKind::Union(_))
        {
            out.push_str("Example:\n\n");
            json_block(out, &e.shown);
        }
    }

    fn variant_examples(&self, out: &mut String, t: &TypeDef, u: &crate::model::Union) {
        for (i, v) in u.variants.iter().enumerate() {
            let variant = v.tag.clone().unwrap_or_else(|| match &v.ty.kind {
                TyKind::Ref(r) => r.name.clone(),
                _ => format!("{}", i + 1),
            });
            let found = self
                .example(&Subject::Frame {
                    union: t.name.clone(),
                    tag: variant.clone(),
                })
                .or_else(|| {
                    self.example(&Subject::Variant {
                        union: t.name.clone(),
                        variant: variant.clone(),
                    })
                });
            if let Some(e) = found {
                let name = if v.tag.is_some() {
                    format!("`\"{variant}\"`")
                } else {
                    format!("`{variant}`")
                };
                let _ = writeln!(out, "Example of {name}:\n");
                json_block(out, &e.shown);
            }
        }
    }

    /// A type expression written in this model, references linked.
    fn ty(&self, t: &Ty) -> String {
        self.ty_in(self.model, t)
    }

    /// A type expression written in `m` (this model or a base), references linked.
    fn ty_in(&self, m: &Model, t: &Ty) -> String {
        match &t.kind {
            TyKind::String(l, format) => format!(
                "`string`{}{}",
                match format {
                    Some(Format::Uri) => " (a `uri`: a scheme and `:` first)",
                    Some(Format::Byte) => " (`byte`: base64)",
                    None => "",
                },
                limits(
                    l.min.map(|x| x as i64),
                    l.max.map(|x| x as i64),
                    ("character", "characters")
                )
            ),
            TyKind::Boolean => "`boolean`".into(),
            TyKind::Int(l, w) => format!("`{}`{}", w.name(), limits(l.min, l.max, ("", ""))),
            TyKind::Number(l) => format!("`number`{}", limits(l.min, l.max, ("", ""))),
            TyKind::Unknown => "`unknown`".into(),
            TyKind::Literal(Literal::String(s)) => format!("`\"{s}\"`"),
            TyKind::Literal(Literal::Bool(b)) => format!("`{b}`"),
            TyKind::Literal(Literal::Int(i)) => format!("`{i}`"),
            TyKind::Literal(Literal::Null) => "`null`".into(),
            TyKind::Array(inner, l) => {
                format!(
                    "array of {}{}",
                    self.ty_in(m, inner),
                    limits(
                        l.min.map(|x| x as i64),
                        l.max.map(|x| x as i64),
                        ("item", "items")
                    )
                )
            }
            TyKind::Map(inner) => format!("map of string to {}", self.ty_in(m, inner)),
            TyKind::Ref(r) => {
                let p = r.protocol.clone().unwrap_or_else(|| m.name.clone());
                if p == self.model.name {
                    format!("[`{}`](#type-{})", r.name, anchor(&r.name))
                } else {
                    self.base_link(
                        &p,
                        &format!("#type-{}", anchor(&r.name)),
                        &format!("`{p}::{}`", r.name),
                    )
                }
            }
            TyKind::Nullable(inner) => format!("{} or `null`", self.ty_in(m, inner)),
        }
    }
}

/// `a` or `an`, for a name read aloud.
fn article(name: &str) -> &'static str {
    match name.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// ` (deprecated)` after a name that is.
fn deprecated_mark(meta: &Meta) -> &'static str {
    if meta.deprecated.is_some() {
        " (deprecated)"
    } else {
        ""
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    joined(items, "or")
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    joined(items, "and")
}

fn joined(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {word} {last}", rest.join(", ")),
    }
}

/// A JSON value as a fenced block.
fn json_block(out: &mut String, v: &Value) {
    let text = serde_json::to_string_pretty(v).expect("a JSON value serialises");
    let _ = writeln!(out, "```json\n{text}\n```\n");
}

/// A JSON value as a fenced block inside a list item.
fn json_block_indented(out: &mut String, v: &Value) {
    let text = serde_json::to_string_pretty(v).expect("a JSON value serialises");
    let _ = writeln!(out, "   ```json");
    for line in text.lines() {
        let _ = writeln!(out, "   {line}");
    }
    let _ = writeln!(out, "   ```\n");
}

fn paragraph(out: &mut String, docs: &Docs, meta: &Meta) {
    if let Some(reason) = &meta.deprecated {
        if reason.is_empty() {
            out.push_str("**Deprecated.**\n\n");
        } else {
            let _ = writeln!(out, "**Deprecated:** {reason}\n");
        }
    }
    if !docs.is_empty() {
        let _ = writeln!(out, "{}\n", docs.text().trim());
    }
}

fn describe(docs: &Docs, meta: &Meta) -> String {
    let mut s = String::new();
    if let Some(r) = &meta.deprecated {
        s.push_str(
            if r.is_empty() {
                "**Deprecated.** ".into()
            } else {
                format!("**Deprecated:** {r}. ")
            }
            .as_str(),
        );
    }
    s.push_str(docs.text().trim());
    s
}

fn first_sentence(docs: &Docs) -> String {
    docs.text().trim().to_owned()
}

/// Text for a table cell: one line, pipes escaped.
fn cell(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// An HTML id: lowercase, dots and other punctuation as dashes.
pub fn anchor(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// A limit in words a person reads: `1 to 128 characters`, `at least 1 character`, `exactly
/// 8 items`; `units` is the unit's singular and plural (empty for numbers).
fn limits(min: Option<i64>, max: Option<i64>, units: (&str, &str)) -> String {
    let unit = |n: i64| {
        let u = if n == 1 { units.0 } else { units.1 };
        if u.is_empty() {
            String::new()
        } else {
            format!(" {u}")
        }
    };
    match (min, max) {
        (None, None) => String::new(),
        (Some(a), None) => format!(" (at least {a}{})", unit(a)),
        (None, Some(b)) => format!(" (at most {b}{})", unit(b)),
        (Some(a), Some(b)) if a == b => format!(" (exactly {a}{})", unit(a)),
        (Some(a), Some(b)) => format!(" ({a} to {b}{})", unit(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_as_words() {
        let c = ("character", "characters");
        assert_eq!(limits(Some(1), None, c), " (at least 1 character)");
        assert_eq!(limits(Some(1), Some(128), c), " (1 to 128 characters)");
        assert_eq!(
            limits(None, Some(1), ("item", "items")),
            " (at most 1 item)"
        );
        assert_eq!(limits(Some(8), Some(8), c), " (exactly 8 characters)");
        assert_eq!(limits(Some(0), None, ("", "")), " (at least 0)");
        assert_eq!(limits(None, None, c), "");
    }
}
