// Our MCP types against the official TypeScript SDK's (`@modelcontextprotocol/sdk/types.js`,
// pinned), where both describe the same message. Checked by the build (`tsc --strict`): each
// `toSdk` function assigns a value of our type to the SDK's, each `fromSdk` the SDK's to ours,
// for every value the types admit. Where a direction does not type-check, the line carries
// `@ts-expect-error` (so the build fails the day they agree) and the reason. Run, the test reads
// one representative value of each message through both libraries' Zod schemas: each accepts
// it and answers it unchanged.
//
// What does not agree, and why:
// - The SDK's types of "any JSON object" are `object` (`z.custom<object>`: a capability such as
//   `logging`, `sampling.context`, `tasks.requests.*`, a value of `experimental`, a property of
//   a tool's `inputSchema.properties`, sampling's `metadata`); ours are `Record<string,
//   unknown>` (`map<unknown>`, an object with any keys). TypeScript's `object` has no index
//   signature, so it is not assignable to a `Record`: the SDK's `InitializeRequestParams`,
//   `InitializeResult`, `ListToolsResult` and `CreateMessageRequestParams` are not assignable
//   to ours (ours are to theirs). The values are the same JSON.
// - `CreateMessageResult`: MCP 2025-11-25's `content` is one block or an array of blocks, a
//   tool use among them; the SDK splits the result in two, `CreateMessageResult` (one text,
//   image or audio block) and `CreateMessageResultWithTools` (arrays and tool blocks). Ours is
//   assignable to their union, and theirs to ours.
// - Every other pair agrees both ways, the SDK's passthrough index signatures
//   (`[x: string]: unknown`) included: ours are open (`z.looseObject`) where MCP's are.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import * as Sdk from '@modelcontextprotocol/sdk/types.js';
import * as Ours from '@adecore/mcp-contracts';

// Our type to the SDK's, and the SDK's to ours, for each message.
export const toSdk = {
    initializeParams: (v: Ours.InitializeRequestParams): Sdk.InitializeRequestParams => v,
    initializeResult: (v: Ours.InitializeResult): Sdk.InitializeResult => v,
    listToolsResult: (v: Ours.ListToolsResult): Sdk.ListToolsResult => v,
    callToolParams: (v: Ours.CallToolRequestParams): Sdk.CallToolRequestParams => v,
    callToolResult: (v: Ours.CallToolResult): Sdk.CallToolResult => v,
    readResourceResult: (v: Ours.ReadResourceResult): Sdk.ReadResourceResult => v,
    getPromptResult: (v: Ours.GetPromptResult): Sdk.GetPromptResult => v,
    createMessageParams: (v: Ours.CreateMessageRequestParams): Sdk.CreateMessageRequestParams => v,
    // @ts-expect-error MCP's content may be an array or a tool use: the SDK's `CreateMessageResultWithTools`.
    createMessageResultNarrow: (v: Ours.CreateMessageResult): Sdk.CreateMessageResult => v,
    createMessageResult: (v: Ours.CreateMessageResult): Sdk.CreateMessageResult | Sdk.CreateMessageResultWithTools => v,
    progressParams: (v: Ours.ProgressNotificationParams): Sdk.ProgressNotificationParams => v,
    loggingParams: (v: Ours.LoggingMessageNotificationParams): Sdk.LoggingMessageNotificationParams => v,
};

export const fromSdk = {
    // @ts-expect-error The SDK's capability values are `object`, ours `Record<string, unknown>`.
    initializeParams: (v: Sdk.InitializeRequestParams): Ours.InitializeRequestParams => v,
    // @ts-expect-error The SDK's capability values are `object`, ours `Record<string, unknown>`.
    initializeResult: (v: Sdk.InitializeResult): Ours.InitializeResult => v,
    // @ts-expect-error The SDK's `inputSchema.properties` values are `object`, ours `Record<string, unknown>`.
    listToolsResult: (v: Sdk.ListToolsResult): Ours.ListToolsResult => v,
    callToolParams: (v: Sdk.CallToolRequestParams): Ours.CallToolRequestParams => v,
    callToolResult: (v: Sdk.CallToolResult): Ours.CallToolResult => v,
    readResourceResult: (v: Sdk.ReadResourceResult): Ours.ReadResourceResult => v,
    getPromptResult: (v: Sdk.GetPromptResult): Ours.GetPromptResult => v,
    // @ts-expect-error The SDK's `metadata` is `object`, ours `Record<string, unknown>`.
    createMessageParams: (v: Sdk.CreateMessageRequestParams): Ours.CreateMessageRequestParams => v,
    createMessageResult: (v: Sdk.CreateMessageResult | Sdk.CreateMessageResultWithTools): Ours.CreateMessageResult => v,
    progressParams: (v: Sdk.ProgressNotificationParams): Ours.ProgressNotificationParams => v,
    loggingParams: (v: Sdk.LoggingMessageNotificationParams): Ours.LoggingMessageNotificationParams => v,
};

// One value of each message, written as our type and checked against the SDK's (`satisfies`).
const initializeParams = {
    protocolVersion: Ours.LATEST_PROTOCOL_VERSION,
    capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
    clientInfo: { name: 'client', title: 'A client', version: '1.2.3' },
} satisfies Ours.InitializeRequestParams satisfies Sdk.InitializeRequestParams;
const initializeResult = {
    protocolVersion: Ours.LATEST_PROTOCOL_VERSION,
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, prompts: {}, logging: {} },
    serverInfo: { name: 'server', version: '0.1.0' },
    instructions: 'Use the tools.',
} satisfies Ours.InitializeResult satisfies Sdk.InitializeResult;
const listToolsResult = {
    tools: [
        {
            name: 'search',
            title: 'Search',
            description: 'Searches the notes',
            inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
            outputSchema: { type: 'object', properties: { hits: { type: 'array' } } },
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
    ],
    nextCursor: 'page-2',
} satisfies Ours.ListToolsResult satisfies Sdk.ListToolsResult;
const callToolParams = {
    name: 'search',
    arguments: { query: 'milk', limit: 3 },
    _meta: { progressToken: 7 },
} satisfies Ours.CallToolRequestParams satisfies Sdk.CallToolRequestParams;
const callToolResult = {
    content: [
        { type: 'text', text: 'two hits' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///notes/1.md', name: '1.md' },
        { type: 'resource', resource: { uri: 'file:///notes/2.md', mimeType: 'text/markdown', text: '# Milk' } },
    ],
    structuredContent: { hits: ['1.md', '2.md'] },
    isError: false,
} satisfies Ours.CallToolResult satisfies Sdk.CallToolResult;
const readResourceResult = {
    contents: [
        { uri: 'file:///notes/1.md', mimeType: 'text/markdown', text: 'buy milk' },
        { uri: 'file:///logo.png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' },
    ],
} satisfies Ours.ReadResourceResult satisfies Sdk.ReadResourceResult;
const getPromptResult = {
    description: 'A review',
    messages: [
        { role: 'user', content: { type: 'text', text: 'Review this:' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'file:///a.ts', text: 'let a = 1;' } } },
        { role: 'assistant', content: { type: 'text', text: 'Looks fine.' } },
    ],
} satisfies Ours.GetPromptResult satisfies Sdk.GetPromptResult;
const createMessageParams = {
    messages: [{ role: 'user', content: { type: 'text', text: 'six times seven?' } }],
    modelPreferences: { hints: [{ name: 'claude' }], intelligencePriority: 0.8, speedPriority: 0.2 },
    systemPrompt: 'Be brief.',
    includeContext: 'thisServer',
    temperature: 0.5,
    maxTokens: 100,
    stopSequences: ['\n\n'],
} satisfies Ours.CreateMessageRequestParams satisfies Sdk.CreateMessageRequestParams;
const createMessageResult = {
    role: 'assistant',
    content: { type: 'text', text: '42' },
    model: 'm-1',
    stopReason: 'endTurn',
} satisfies Ours.CreateMessageResult satisfies Sdk.CreateMessageResult;
const progressParams = { progressToken: 'call-7', progress: 50, total: 100, message: 'half way' } satisfies Ours.ProgressNotificationParams satisfies Sdk.ProgressNotificationParams;
const loggingParams = { level: 'warning', logger: 'db', data: { slow: true } } satisfies Ours.LoggingMessageNotificationParams satisfies Sdk.LoggingMessageNotificationParams;

/** Each value with our schema and the SDK's. */
const pairs: [string, unknown, z.ZodType, { safeParse(v: unknown): { success: boolean; data?: unknown } }][] = [
    ['InitializeRequestParams', initializeParams, Ours.InitializeRequestParamsSchema, Sdk.InitializeRequestParamsSchema],
    ['InitializeResult', initializeResult, Ours.InitializeResultSchema, Sdk.InitializeResultSchema],
    ['ListToolsResult', listToolsResult, Ours.ListToolsResultSchema, Sdk.ListToolsResultSchema],
    ['CallToolRequestParams', callToolParams, Ours.CallToolRequestParamsSchema, Sdk.CallToolRequestParamsSchema],
    ['CallToolResult', callToolResult, Ours.CallToolResultSchema, Sdk.CallToolResultSchema],
    ['ReadResourceResult', readResourceResult, Ours.ReadResourceResultSchema, Sdk.ReadResourceResultSchema],
    ['GetPromptResult', getPromptResult, Ours.GetPromptResultSchema, Sdk.GetPromptResultSchema],
    ['CreateMessageRequestParams', createMessageParams, Ours.CreateMessageRequestParamsSchema, Sdk.CreateMessageRequestParamsSchema],
    ['CreateMessageResult', createMessageResult, Ours.CreateMessageResultSchema, Sdk.CreateMessageResultSchema],
    ['ProgressNotificationParams', progressParams, Ours.ProgressNotificationParamsSchema, Sdk.ProgressNotificationParamsSchema],
    ['LoggingMessageNotificationParams', loggingParams, Ours.LoggingMessageNotificationParamsSchema, Sdk.LoggingMessageNotificationParamsSchema],
];

test('each value is accepted unchanged by our schema and by the SDK\'s', () => {
    for (const [name, value, ours, theirs] of pairs) {
        const a = Ours.parseWith(ours, value);
        assert.ok(a.ok, `${name}: ours refuses it: ${a.ok ? '' : a.message}`);
        assert.deepEqual(a.value, value, `${name}: ours`);
        const b = theirs.safeParse(value);
        assert.ok(b.success, `${name}: the SDK refuses it`);
        assert.deepEqual(b.data, value, `${name}: the SDK's`);
    }
});
