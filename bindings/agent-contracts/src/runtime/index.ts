// `@adecore/agent-contracts/runtime`: what every generated package's code runs on, shipped once
// (by this package) and imported by the others (the Agent Connect frames, an app's package), so
// a consumer has one copy. Hand-written; `contracts-codegen/tests/ts_runtime.rs` checks that it
// exports every name the generated code imports from it.

export { type ParseResult, type TypedParseResult, MAX_ISSUES, noTableEntry, quoteName, parseWith, refusalMessage } from './parse.js';
export { onString, onArray } from './limits.js';
export { wholeI64, wholeU64 } from './ints.js';
export { type RawCall, type RpcCallOptions, type RpcHandlerContext, type RpcFailure, type DispatchAnswer, type CallTable, type NotifyTable, RPC_CODES, InvalidResultError, callTyped, dispatchTyped, notifyTyped } from './calls.js';
export { type RpcPort, type RpcSide, type RpcEnvelope, type RpcCancel, type RpcOptions, type RpcSession, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_WAITING, RpcConnection, RpcError, ConnectionClosedError, connectRpc } from './rpc.js';
export { type RpcId, type ReadMessage, NOT_JSON, readMessage } from './message.js';
export { type LineInput, type LineOutput, type NdjsonOptions, type NdjsonPort, DEFAULT_MAX_FRAME_BYTES, FrameTooLarge, ndjsonPort } from './ndjson.js';
