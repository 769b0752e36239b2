//! emit::typescript::readme: the package's `README.md` (what it holds, how to install it, an
//! example, the wire rules) and `test/readme-example.ts`, the README's example in a function
//! that `npm run build` compiles, so it cannot go stale.

use super::{Emitter, HEADER, js_string, package};
use crate::model::TableKind;
use std::fmt::Write as _;

/// The README's example: what it imports from the package, and the code after the imports
/// (it reads a frame from `text`).
pub(super) struct Example {
    pub(super) imports: Vec<String>,
    pub(super) body: String,
}

/// The wire rules every generated package follows, as its README states them.
pub(super) const README_SEMANTICS: &str = "
## Wire semantics

- Objects are `z.object`: unknown keys are accepted and dropped, so an old reader survives a
  newer writer (contracts grow by optional fields).
- An optional field may be absent; present, it must be valid, and `null` is refused unless
  its type admits null. A nullable field must be present and may be `null`.
- Enum values and union tags are closed: a value the schema does not name is refused.
- Integers are `z.int()`: integral numbers in the safe range (`100`, `100.0` and `1e2` alike).
- String limits count code points, as Zod 4.6 and later do (the package pins its zod).

The generated schemas build on shared ones with Zod's function forms (`z.optional(NameSchema)`,
`z.safeParse(schema, input)`): Zod 4 binds a method onto a schema the first time it is read,
which gives that schema a hidden class of its own and slows the parse code every schema shares.
Code that builds its own schemas from these at a high rate may want the same forms.
";

/// The names of the functions `ts` exports, in order.
pub(super) fn exported_functions(ts: &str) -> impl Iterator<Item = &str> {
    ts.lines().filter_map(|l| {
        let rest = l.strip_prefix("export function ")?;
        rest.split(['(', '<']).next()
    })
}

/// `a`, `a` and `b`, `a`, `b` and `c`: each in backticks.
pub(super) fn code_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl<'a> Emitter<'a> {
    /// `README.md`: what the package holds and how to use it, from the same model and options
    /// as its sources. The parse functions it lists are the ones `frames_ts` exports; its
    /// example is `example`, which the package compiles too (`test/readme-example.ts`).
    pub(super) fn readme(&self, frames_ts: &str, example: Option<&Example>) -> String {
        let o = self.options;
        let (p, tp) = (self.prefix_const(), o.type_prefix());
        let mut out = format!(
            "{}\n\n# {}\n\n",
            crate::emit::MARKDOWN_HEADER,
            o.package_name
        );
        if !o.description.is_empty() {
            let _ = writeln!(out, "{}\n", o.description);
        }
        let _ = writeln!(
            out,
            "Generated from the schema directory of the `{}` protocol, the one the Rust types and \
             validators are generated from: both sides give every JSON input the same verdict.\n",
            self.model.name
        );
        out.push_str(&package::readme_install(o));
        if let Some(e) = example {
            let _ = writeln!(
                out,
                "## Use\n\n```ts\nimport {{ {} }} from '{}';\n\n{}```\n",
                e.imports.join(", "),
                o.package_name,
                e.body
            );
        }
        out.push_str("## What it holds\n\n");
        let (requests, events) = (self.model.all_requests(), self.model.all_events());
        if !requests.is_empty() {
            let _ = writeln!(
                out,
                "- `{p}_REQUEST_SCHEMAS`: each of the {} requests by name, `{{ payload, result }}`; `{tp}RequestType` is the union of their names.",
                requests.len()
            );
        }
        if !events.is_empty() {
            let _ = writeln!(
                out,
                "- `{p}_EVENT_SCHEMAS`: each of the {} events by name, its payload's schema; `{tp}EventType` is the union of their names.",
                events.len()
            );
        }
        let parse: Vec<&str> = exported_functions(frames_ts)
            .filter(|f| f.starts_with("parse"))
            .collect();
        let (typed, plain): (Vec<&str>, Vec<&str>) =
            parse.iter().partition(|f| f.ends_with("Typed"));
        if !plain.is_empty() {
            let _ = writeln!(
                out,
                "- {}: never throw; they answer `{{ ok: true, value }}` or `{{ ok: false, message }}`, the message in Zod's `prettifyError` layout.",
                code_list(&plain)
            );
        }
        if !typed.is_empty() {
            let _ = writeln!(
                out,
                "- {}: a frame and its payload, read by its name, in one pass; when that refuses, the two stages answer (`{{ ok: false, stage, message }}`).",
                code_list(&typed)
            );
        }
        if self.rpc_envelope().is_some() {
            let _ = writeln!(
                out,
                "- `connect{tp}Client` and `connect{tp}Host`: each side as a JSON-RPC 2.0 connection over a port of JSON texts (`RpcPort`, from `{}`: `ndjsonPort` over stdio, an in-memory pair, a WebSocket's text messages): the other side's typed calls, this side's handlers and listeners, cancellation by an `AbortSignal`.",
                self.options.runtime.specifier()
            );
        }
        let _ = writeln!(
            out,
            "- A schema `<Name>Schema` and a type `<Name>` for each of the {} types of this protocol, with their documentation as JSDoc.",
            self.model.types.len()
        );
        for m in self.modules() {
            let _ = writeln!(
                out,
                "- `{}/{m}`: the types of the `{m}` module.",
                o.package_name
            );
        }
        let _ = writeln!(
            out,
            "- `{}/schema.json`: JSON Schema (draft 2020-12) of every type{}, for clients in other languages.",
            o.package_name,
            if self.has_tables() {
                " and table entry"
            } else {
                ""
            }
        );
        let bases: Vec<&str> = self
            .model
            .bases
            .iter()
            .filter_map(|b| o.base_packages.get(&b.name).map(|p| p.name.as_str()))
            .collect();
        if !bases.is_empty() {
            let _ = writeln!(
                out,
                "- The base protocols' types and table entries come from {}, imported, not copied: the tables above spread theirs.",
                code_list(&bases)
            );
        }
        for m in &o.entry_points {
            let _ = writeln!(
                out,
                "- `{}/{m}`: written by hand beside the generated sources, an entry point of its own.",
                o.package_name
            );
        }
        if !o.extra_exports.is_empty() {
            let extra: Vec<&str> = o.extra_exports.iter().map(String::as_str).collect();
            let _ = writeln!(
                out,
                "- Written by hand beside the generated sources and exported from the root: {}.",
                code_list(&extra)
            );
        }
        out.push_str(README_SEMANTICS);
        out
    }

    /// The README's example, for the first request (this protocol's own, else its table's
    /// first): a request frame parsed, then its payload by name through the request table, as
    /// the spec shows it; without a parse function for the frame, the one pass; without a
    /// request table, the first parse function alone.
    pub(super) fn readme_example(&self, frames_ts: &str) -> Option<Example> {
        let exported: Vec<&str> = exported_functions(frames_ts).collect();
        if let Some(f) = self
            .typed_frames()
            .into_iter()
            .find(|f| f.table == TableKind::Requests)
        {
            let name = self
                .model
                .requests
                .first()
                .map(|r| r.name.as_str())
                .or(f.entries.first().copied())
                .map(js_string)?;
            let (frame, key, field) = (&f.schema.name, &f.key.name, &f.field.name);
            let parse = format!("parse{frame}");
            if exported.contains(&parse.as_str()) {
                let table = format!("{}_REQUEST_SCHEMAS", self.prefix_const());
                return Some(Example {
                    imports: vec![table.clone(), parse.clone()],
                    body: format!(
                        "const frame = {parse}(JSON.parse(text));\n\
                         if (!frame.ok) {{\n    console.error(frame.message);\n}} else if (frame.value.{key} === {name}) {{\n    \
                         const {field} = {table}[{name}].payload.parse(frame.value.{field});\n    console.log({field});\n}}\n"
                    ),
                });
            }
            let parse = format!("parse{frame}Typed");
            if exported.contains(&parse.as_str()) {
                return Some(Example {
                    imports: vec![parse.clone()],
                    body: format!(
                        "const frame = {parse}(JSON.parse(text));\n\
                         if (!frame.ok) {{\n    console.error(frame.stage, frame.message);\n}} else if (frame.value.{key} === {name}) {{\n    \
                         // The {field}'s type is the one {name} names.\n    console.log(frame.value.{field});\n}}\n"
                    ),
                });
            }
        }
        let f = exported
            .into_iter()
            .find(|f| f.starts_with("parse") && !f.ends_with("Typed"))?;
        Some(Example {
            imports: vec![f.to_owned()],
            body: format!(
                "const frame = {f}(JSON.parse(text));\n\
                 if (frame.ok) {{\n    console.log(frame.value);\n}} else {{\n    console.error(frame.message);\n}}\n"
            ),
        })
    }

    /// `test/readme-example.ts`: the README's example in a function, compiled with the package
    /// by `npm run build`, so it cannot go stale.
    pub(super) fn readme_example_ts(&self, example: &Example) -> String {
        let body: String = example
            .body
            .lines()
            .map(|l| match l {
                "" => "\n".to_owned(),
                l => format!("    {l}\n"),
            })
            .collect();
        format!(
            "{HEADER}\n//\n// The example of README.md, type-checked with the package (`npm run build`).\n\n\
             import {{ {} }} from '../src/index.js';\n\n\
             /** Reads `text`, a frame, as README.md shows. */\n\
             export function readmeExample(text: string): void {{\n{body}}}\n",
            example.imports.join(", ")
        )
    }
}
