//! emit::typescript::connect: `src/connect.ts` of a JSON-RPC protocol (tables with two sides,
//! and a message union holding the request and the notification frame: MCP's `JSONRPCMessage`,
//! ACP's `JsonRpcMessage`): `connect<Prefix>Client` and `connect<Prefix>Host`, each side's typed
//! calls over the runtime's `RpcConnection`, which reads responses by that union (and asks it
//! whether an unreadable message is answered with `"id": null`) and serves the side through the
//! tables' dispatchers. No protocol is named here: the
//! envelope is the union the schema declares, the cancel notification the caller's choice.

use super::{Emitter, HEADER, js_string};
use crate::model::TableKind;
use crate::names;
use std::fmt::Write as _;

/// The schema a connection reads responses by: the message union's, with the module it is
/// imported from.
pub(super) struct Envelope {
    message: (String, String),
}

impl<'a> Emitter<'a> {
    /// The JSON-RPC envelope of a two-sided protocol: the one untagged union of structs whose
    /// variants hold the request table's frame and the event table's; `None` for a protocol
    /// with one side, or without exactly one such union.
    pub(super) fn rpc_envelope(&self) -> Option<Envelope> {
        if !self.model.two_sided() {
            return None;
        }
        let typed = self.typed_frames();
        let unions = self.typed_unions(&typed);
        let mut found = self
            .variants_typed_unions(&typed, &unions)
            .into_iter()
            .filter_map(|u| {
                let frame_of = |table: TableKind| {
                    u.variants
                        .iter()
                        .find(|v| v.frame.is_some_and(|i| typed[i].table == table))
                };
                frame_of(TableKind::Events)?;
                frame_of(TableKind::Requests)?;
                let r = &u.schema;
                Some(Envelope {
                    message: (names::ts_schema(&r.name), self.module_of(r)),
                })
            });
        let envelope = found.next()?;
        found.next().is_none().then_some(envelope)
    }

    /// `src/connect.ts`: each side's connection over a port of JSON texts.
    pub(super) fn connect(&self, envelope: &Envelope) -> String {
        let p = self.prefix_const();
        let tp = self.options.type_prefix();
        let name = &self.model.name;
        let mut out = format!(
            "{HEADER}
//
// Each side of the `{name}` protocol as a JSON-RPC connection over a port of JSON texts (the
// runtime's `RpcConnection`): every incoming message read as JSON-RPC 2.0 says (as the Rust
// connection reads it), responses by the protocol's message schema, this side served by the
// tables' dispatchers, the other side's typed calls.

"
        );
        let (message, module) = &envelope.message;
        let _ = writeln!(out, "import {{ {message} }} from {};", js_string(module));
        let _ = writeln!(
            out,
            "import {{ create{tp}ClientCalls, create{tp}HostCalls, dispatch{tp}Client, dispatch{tp}Host, notify{tp}Client, notify{tp}Host, type {tp}ClientCalls, type {tp}ClientEventType, type {tp}ClientHandlers, type {tp}ClientListeners, type {tp}EventPayload, type {tp}HostCalls, type {tp}HostHandlers, type {tp}HostListeners, type {tp}ServerEventType }} from './tables.js';"
        );
        let _ = writeln!(
            out,
            "import {{ connectRpc, type RpcEnvelope, type RpcFailure, type RpcHandlerContext, type RpcOptions, type RpcPort, type RpcSession }} from {};",
            js_string(&self.options.runtime.specifier())
        );
        let _ = write!(
            out,
            "
/** The envelope of a connection: the message union, which reads each response and says whether an unreadable message is answered with `\"id\": null`. */
export const {p}_RPC_ENVELOPE: RpcEnvelope = {{ message: {message} }};

/** An event both sides send whose params name a request (`requestId`): one that may cancel a request. */
export type {tp}CancelEvent = {{
    [K in {tp}ClientEventType & {tp}ServerEventType]: {tp}EventPayload<K> extends {{ requestId?: infer R }} ? (unknown extends R ? never : K) : never;
}}[{tp}ClientEventType & {tp}ServerEventType];

/** The notification that cancels a request, sent when a caller aborts and heard to abort a handler; `answer` as the runtime's `RpcCancel` says. */
export interface {tp}Cancel {{
    readonly method: {tp}CancelEvent;
    readonly answer?: RpcFailure;
}}
"
        );
        for (side, other, who) in [
            ("Client", "Host", "client"),
            ("Host", "Client", "host (the server)"),
        ] {
            let _ = write!(
                out,
                "
/** How the {who} connects: its handlers and listeners, the cancel notification (none by default), the reports. */
export interface {tp}{side}Options extends RpcOptions {{
    readonly handlers?: {tp}{side}Handlers;
    readonly listeners?: {tp}{side}Listeners;
    readonly cancel?: {tp}Cancel;
}}

/**
 * The {who} of a JSON-RPC connection over `port`: its calls to the {other_lower} (`{tp}{side}Calls`),
 * and `close`. Requests the {other_lower} sends go to `options.handlers`, its notifications to
 * `options.listeners`.
 */
export function connect{tp}{side}(port: RpcPort, options: {tp}{side}Options = {{}}): {tp}{side}Calls & RpcSession {{
    const handlers = options.handlers ?? {{}};
    const listeners = options.listeners ?? {{}};
    const side = {{
        dispatch: (method: string, params: unknown, context: RpcHandlerContext) => dispatch{tp}{side}(handlers, method, params, context),
        notify: (event: string, params: unknown) => notify{tp}{side}(listeners, event, params),
    }};
    return connectRpc(port, side, {p}_RPC_ENVELOPE, options, create{tp}{side}Calls);
}}
",
                other_lower = other.to_lowercase(),
            );
        }
        out
    }
}
