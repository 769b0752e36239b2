//! emit::typescript::tables: `src/tables.ts`, the request and event tables (a base's spread
//! first), their name and payload types, and the parse functions by name.

use super::{Emitter, HEADER, js_string, jsdoc, write_imports};
use crate::model::{Direction, Docs, Meta, Ty};
use crate::names;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

impl<'a> Emitter<'a> {
    /// `src/tables.ts`: the request and event tables and their types.
    pub(super) fn tables(&self) -> String {
        let p = self.prefix_const();
        let tp = self.options.type_prefix();
        let mut out = format!(
            "{HEADER}\n//\n// The request and event tables of the `{}` protocol.\n\n",
            self.model.name
        );
        // The composed table: each base's table is spread from its package, then this
        // protocol's own entries. No base entry is written here.
        let m = self.model;
        let requests: Vec<(String, Docs, Meta, Ty, Ty)> = m
            .requests
            .iter()
            .map(|r| {
                (
                    r.name.clone(),
                    r.docs.clone(),
                    r.meta.clone(),
                    self.qualify(m, &r.payload),
                    self.qualify(m, &r.result),
                )
            })
            .collect();
        // Each request's metadata (`partial`, `errorData`), by name.
        let metadata: BTreeMap<&str, Vec<(&str, Ty)>> = m
            .requests
            .iter()
            .map(|r| {
                let md = r
                    .metadata()
                    .map(|(attr, t)| {
                        let key = if attr == "partial" {
                            "partial"
                        } else {
                            "errorData"
                        };
                        (key, self.qualify(m, t))
                    })
                    .collect();
                (r.name.as_str(), md)
            })
            .collect();
        let events: Vec<(String, Docs, Meta, Ty)> = m
            .events
            .iter()
            .map(|e| {
                (
                    e.name.clone(),
                    e.docs.clone(),
                    e.meta.clone(),
                    self.qualify(m, &e.payload),
                )
            })
            .collect();
        // Each direct base: its package and table prefix.
        let bases: Vec<(String, String)> = m
            .bases
            .iter()
            .map(|b| match self.options.base_packages.get(&b.name) {
                Some(p) => (p.name.clone(), p.table_prefix.clone()),
                None => (b.name.clone(), b.name.to_uppercase()),
            })
            .collect();
        // Every schema named by a table entry.
        let mut own: BTreeSet<String> = BTreeSet::new();
        let mut based: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut note = |ty: &Ty| {
            ty.each_ref(&mut |r| {
                if self.is_own(r) {
                    own.insert(names::ts_schema(&r.name));
                } else {
                    based
                        .entry(self.import_spec(r))
                        .or_default()
                        .insert(names::ts_schema(&r.name));
                }
            })
        };
        for (_, _, _, payload, result) in &requests {
            note(payload);
            note(result);
        }
        for md in metadata.values() {
            for (_, t) in md {
                note(t);
            }
        }
        for (_, _, _, payload) in &events {
            note(payload);
        }
        for (pkg, bp) in &bases {
            based.entry(pkg.clone()).or_default().extend(
                [
                    "EVENT_SCHEMAS",
                    "EVENT_TYPES",
                    "REQUEST_SCHEMAS",
                    "REQUEST_TYPES",
                ]
                .map(|t| format!("{bp}_{t}")),
            );
        }
        out.push_str("import { z } from 'zod';\n");
        write_imports(&mut out, &based);
        if !own.is_empty() {
            let list: Vec<&str> = own.iter().map(String::as_str).collect();
            let _ = writeln!(out, "import {{ {} }} from './schemas.js';", list.join(", "));
        }
        let runtime_names = if self.model.two_sided() {
            "callTyped, dispatchTyped, notifyTyped, parseWith, type DispatchAnswer, type ParseResult, type RawCall, type RpcCallOptions, type RpcHandlerContext"
        } else {
            "parseWith, type ParseResult"
        };
        let _ = writeln!(
            out,
            "import {{ {runtime_names} }} from {};",
            js_string(&self.options.runtime.specifier())
        );

        let _ = write!(
            out,
            "\n/** Every request by name: its payload and result schemas. */\nexport const {p}_REQUEST_SCHEMAS = {{\n"
        );
        for (_, bp) in &bases {
            let _ = writeln!(out, "    ...{bp}_REQUEST_SCHEMAS,");
        }
        for (name, docs, meta, payload, result) in &requests {
            out.push_str(&jsdoc(docs, meta, &[], "    "));
            let extra: String = metadata
                .get(name.as_str())
                .into_iter()
                .flatten()
                .map(|(k, t)| format!(", {k}: {}", self.ty(t)))
                .collect();
            let _ = writeln!(
                out,
                "    {}: {{ payload: {}, result: {}{extra} }},",
                js_string(name),
                self.ty(payload),
                self.ty(result)
            );
        }
        out.push_str("} as const;\n");
        let _ = write!(
            out,
            "\n/** Every event by name: its payload schema. */\nexport const {p}_EVENT_SCHEMAS = {{\n"
        );
        for (_, bp) in &bases {
            let _ = writeln!(out, "    ...{bp}_EVENT_SCHEMAS,");
        }
        for (name, docs, meta, payload) in &events {
            out.push_str(&jsdoc(docs, meta, &[], "    "));
            let _ = writeln!(out, "    {}: {},", js_string(name), self.ty(payload));
        }
        out.push_str("} as const;\n");

        // A base's names are spread from its list, as its table is.
        let list = |spreads: Vec<String>, names: Vec<&str>| -> String {
            if names.is_empty() && spreads.is_empty() {
                "[]".to_owned()
            } else {
                let mut s = "[\n".to_owned();
                for x in spreads {
                    let _ = writeln!(s, "    ...{x},");
                }
                for n in names {
                    let _ = writeln!(s, "    {},", js_string(n));
                }
                s.push(']');
                s
            }
        };
        // An empty table's entry types are `never` (its names are): indexing one would
        // not type-check.
        let request_payload = if self.model.all_requests().is_empty() {
            "never".to_owned()
        } else {
            format!("z.output<(typeof {p}_REQUEST_SCHEMAS)[K]['payload']>")
        };
        let request_result = if self.model.all_requests().is_empty() {
            "never".to_owned()
        } else {
            format!("z.output<(typeof {p}_REQUEST_SCHEMAS)[K]['result']>")
        };
        let request_entry = if self.model.all_requests().is_empty() {
            format!(
                "({p}_REQUEST_SCHEMAS as Record<string, {{ payload: z.ZodType; result: z.ZodType }}>)[type]!"
            )
        } else {
            format!("{p}_REQUEST_SCHEMAS[type]")
        };
        let event_entry = if self.model.all_events().is_empty() {
            format!("({p}_EVENT_SCHEMAS as Record<string, z.ZodType>)[event]!")
        } else {
            format!("{p}_EVENT_SCHEMAS[event]")
        };
        let event_payload = if self.model.all_events().is_empty() {
            "never".to_owned()
        } else {
            format!("z.output<(typeof {p}_EVENT_SCHEMAS)[K]>")
        };
        let _ = write!(
            out,
            "
/** The name of a request in the table. */
export type {tp}RequestType = keyof typeof {p}_REQUEST_SCHEMAS;
/** The name of an event in the table. */
export type {tp}EventType = keyof typeof {p}_EVENT_SCHEMAS;
/** A request's payload, as parsed. */
export type {tp}RequestPayload<K extends {tp}RequestType> = {request_payload};
/** A request's result, as parsed. */
export type {tp}RequestResult<K extends {tp}RequestType> = {request_result};
/** An event's payload, as parsed. */
export type {tp}EventPayload<K extends {tp}EventType> = {event_payload};
/** A request's partial result (`#[partial]`), as parsed; `never` for a request without one. */
export type {tp}RequestPartial<K extends {tp}RequestType> = (typeof {p}_REQUEST_SCHEMAS)[K] extends {{ partial: infer S extends z.ZodType }} ? z.output<S> : never;
/** A request's error data (`#[error_data]`), as parsed; `never` for a request without it. */
export type {tp}RequestErrorData<K extends {tp}RequestType> = (typeof {p}_REQUEST_SCHEMAS)[K] extends {{ errorData: infer S extends z.ZodType }} ? z.output<S> : never;

/** Every request name, in table order. */
export const {p}_REQUEST_TYPES: readonly {tp}RequestType[] = {};
/** Every event name, in table order. */
export const {p}_EVENT_TYPES: readonly {tp}EventType[] = {};

/** Whether `name` is a request the table knows. */
export function is{tp}RequestType(name: string): name is {tp}RequestType {{
    return Object.prototype.hasOwnProperty.call({p}_REQUEST_SCHEMAS, name);
}}

/** Whether `name` is an event the table knows. */
export function is{tp}EventType(name: string): name is {tp}EventType {{
    return Object.prototype.hasOwnProperty.call({p}_EVENT_SCHEMAS, name);
}}

/** The table stage for a request's payload; never throws. */
export function parse{tp}RequestPayload<K extends {tp}RequestType>(type: K, payload: unknown): ParseResult<{tp}RequestPayload<K>> {{
    return parseWith({request_entry}.payload, payload) as ParseResult<{tp}RequestPayload<K>>;
}}

/** The table stage for a request's result; never throws. */
export function parse{tp}RequestResult<K extends {tp}RequestType>(type: K, result: unknown): ParseResult<{tp}RequestResult<K>> {{
    return parseWith({request_entry}.result, result) as ParseResult<{tp}RequestResult<K>>;
}}

/** The table stage for an event's payload; never throws. */
export function parse{tp}EventPayload<K extends {tp}EventType>(event: K, payload: unknown): ParseResult<{tp}EventPayload<K>> {{
    return parseWith({event_entry}, payload) as ParseResult<{tp}EventPayload<K>>;
}}
",
            list(
                bases.iter().map(|(_, bp)| format!("{bp}_REQUEST_TYPES")).collect(),
                requests.iter().map(|r| r.0.as_str()).collect()
            ),
            list(
                bases.iter().map(|(_, bp)| format!("{bp}_EVENT_TYPES")).collect(),
                events.iter().map(|e| e.0.as_str()).collect()
            ),
        );
        if self.model.two_sided() {
            out.push_str(&self.sides());
        }
        out
    }

    /// A two-sided protocol's senders and handler types (MCP's server and client, ACP's agent
    /// and client): who sends each entry, each side's names, and each side's handlers.
    fn sides(&self) -> String {
        let p = self.prefix_const();
        let tp = self.options.type_prefix();
        let sender = |d: Direction| match d {
            Direction::ClientToServer => "'client'",
            Direction::ServerToClient => "'server'",
            Direction::Both => "'both'",
        };
        let mut out = format!(
            "\n/** Who sends each request: the client, the server (the host), or both. */\nexport const {p}_REQUEST_SENDERS = {{\n"
        );
        for (_, r) in self.model.all_requests() {
            let _ = writeln!(out, "    {}: {},", js_string(&r.name), sender(r.sender()));
        }
        let _ = write!(
            out,
            "}} as const;\n\n/** Who sends each event (a notification). */\nexport const {p}_EVENT_SENDERS = {{\n"
        );
        for (_, e) in self.model.all_events() {
            let _ = writeln!(out, "    {}: {},", js_string(&e.name), sender(e.sender()));
        }
        out.push_str("} as const;\n");
        for (side, other) in [("Client", "server"), ("Server", "client")] {
            let lower = side.to_lowercase();
            let _ = write!(
                out,
                "
/** The name of a request the {lower} sends (the {other} answers it). */
export type {tp}{side}RequestType = {{ [K in {tp}RequestType]: (typeof {p}_REQUEST_SENDERS)[K] extends '{other}' ? never : K }}[{tp}RequestType];
/** The name of an event the {lower} sends. */
export type {tp}{side}EventType = {{ [K in {tp}EventType]: (typeof {p}_EVENT_SENDERS)[K] extends '{other}' ? never : K }}[{tp}EventType];
"
            );
        }
        for (side, sends, hears) in [("Host", "Client", "Client"), ("Client", "Server", "Server")] {
            let who = if side == "Host" {
                "host (the server)"
            } else {
                "client"
            };
            let _ = write!(
                out,
                "
/** What the {who} answers: a handler per request the other side sends, told its payload and a signal that aborts when the request is cancelled. A missing one is refused as method not found. */
export type {tp}{side}Handlers = {{
    readonly [K in {tp}{sends}RequestType]?: (payload: {tp}RequestPayload<K>, context: RpcHandlerContext) => Promise<{tp}RequestResult<K>>;
}};
/** What the {who} hears: a listener per event (notification) the other side sends. */
export type {tp}{side}Listeners = {{
    readonly [K in {tp}{hears}EventType]?: (payload: {tp}EventPayload<K>) => void;
}};
"
            );
        }
        // Each side's typed calls to the other, and its dispatchers, on the runtime's.
        for (side, sends, to) in [("Client", "Client", "Host"), ("Host", "Server", "Client")] {
            let who = if side == "Host" {
                "a host sends its client"
            } else {
                "a client sends its host"
            };
            let _ = write!(
                out,
                "
/** What {who}, typed: a request answers its result (read by the request's table; a result it refuses throws `InvalidResultError`; `options.signal` aborts it), an event is a notification. */
export interface {tp}{side}Calls {{
    request<K extends {tp}{sends}RequestType>(method: K, payload: {tp}RequestPayload<K>, options?: RpcCallOptions): Promise<{tp}RequestResult<K>>;
    notify<K extends {tp}{sends}EventType>(event: K, payload: {tp}EventPayload<K>): Promise<void>;
}}

/** {tp}{side}Calls through a connection (`RawCall`: a JSON-RPC connection). */
export function create{tp}{side}Calls(call: RawCall): {tp}{side}Calls {{
    return {{
        request: (method, payload, options) => callTyped({p}_REQUEST_SCHEMAS, call, method, payload, options) as never,
        notify: (event, payload) => call.notify(event, payload),
    }};
}}

/** Answers a request the other side sent with the {lower}'s handler, as the Rust dispatcher does: JSON-RPC's codes and messages (`dispatchTyped`); the handler is told `context`. */
export function dispatch{tp}{to}(handlers: {tp}{to}Handlers, method: string, params: unknown, context?: RpcHandlerContext): Promise<DispatchAnswer> {{
    return dispatchTyped({p}_REQUEST_SCHEMAS, (name) => {p}_REQUEST_SENDERS[name as {tp}RequestType] !== '{own}', handlers as never, method, params, context);
}}

/** Hears an event the other side sent with the {lower}'s listener (`notifyTyped`). */
export function notify{tp}{to}(listeners: {tp}{to}Listeners, event: string, params: unknown): ReturnType<typeof notifyTyped> {{
    return notifyTyped({p}_EVENT_SCHEMAS, (name) => {p}_EVENT_SENDERS[name as {tp}EventType] !== '{own}', listeners as never, event, params);
}}
",
                lower = to.to_lowercase(),
                own = if to == "Host" { "server" } else { "client" },
            );
        }
        out
    }
}
