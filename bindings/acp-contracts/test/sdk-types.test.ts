// Our ACP types against the official TypeScript SDK's (`@agentclientprotocol/sdk`, pinned, its
// stable v1 types), where both describe the same message. Checked by the build (`tsc
// --strict`): each `toSdk` function assigns a value of our type to the SDK's, each `fromSdk`
// the SDK's to ours, for every value the types admit; every pair below agrees both ways (ours
// are open objects where ACP's are, the SDK's `_meta` maps and `| null` fields included). Run,
// the test reads one value of each message, written as our type and checked against the
// SDK's with `satisfies`, through our schemas: accepted, unchanged. (The SDK does not export
// its Zod schemas; its connection reads these messages in test/sdk.test.ts.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import type * as Sdk from '@agentclientprotocol/sdk';
import * as Ours from '@adecore/acp-contracts';

// Our type to the SDK's, and the SDK's to ours, for each message.
export const toSdk = {
    initializeRequest: (v: Ours.InitializeRequest): Sdk.InitializeRequest => v,
    initializeResponse: (v: Ours.InitializeResponse): Sdk.InitializeResponse => v,
    newSessionRequest: (v: Ours.NewSessionRequest): Sdk.NewSessionRequest => v,
    newSessionResponse: (v: Ours.NewSessionResponse): Sdk.NewSessionResponse => v,
    promptRequest: (v: Ours.PromptRequest): Sdk.PromptRequest => v,
    promptResponse: (v: Ours.PromptResponse): Sdk.PromptResponse => v,
    sessionNotification: (v: Ours.SessionNotification): Sdk.SessionNotification => v,
    requestPermissionRequest: (v: Ours.RequestPermissionRequest): Sdk.RequestPermissionRequest => v,
    requestPermissionResponse: (v: Ours.RequestPermissionResponse): Sdk.RequestPermissionResponse => v,
    readTextFileRequest: (v: Ours.ReadTextFileRequest): Sdk.ReadTextFileRequest => v,
    readTextFileResponse: (v: Ours.ReadTextFileResponse): Sdk.ReadTextFileResponse => v,
    cancelNotification: (v: Ours.CancelNotification): Sdk.CancelNotification => v,
};

export const fromSdk = {
    initializeRequest: (v: Sdk.InitializeRequest): Ours.InitializeRequest => v,
    initializeResponse: (v: Sdk.InitializeResponse): Ours.InitializeResponse => v,
    newSessionRequest: (v: Sdk.NewSessionRequest): Ours.NewSessionRequest => v,
    newSessionResponse: (v: Sdk.NewSessionResponse): Ours.NewSessionResponse => v,
    promptRequest: (v: Sdk.PromptRequest): Ours.PromptRequest => v,
    promptResponse: (v: Sdk.PromptResponse): Ours.PromptResponse => v,
    sessionNotification: (v: Sdk.SessionNotification): Ours.SessionNotification => v,
    requestPermissionRequest: (v: Sdk.RequestPermissionRequest): Ours.RequestPermissionRequest => v,
    requestPermissionResponse: (v: Sdk.RequestPermissionResponse): Ours.RequestPermissionResponse => v,
    readTextFileRequest: (v: Sdk.ReadTextFileRequest): Ours.ReadTextFileRequest => v,
    readTextFileResponse: (v: Sdk.ReadTextFileResponse): Ours.ReadTextFileResponse => v,
    cancelNotification: (v: Sdk.CancelNotification): Ours.CancelNotification => v,
};

// One value of each message, written as our type and checked against the SDK's.
const values: [string, unknown, z.ZodType][] = [
    [
        'InitializeRequest',
        {
            protocolVersion: Ours.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
            clientInfo: { name: 'editor', version: '1.0.0' },
        } satisfies Ours.InitializeRequest satisfies Sdk.InitializeRequest,
        Ours.InitializeRequestSchema,
    ],
    [
        'InitializeResponse',
        {
            protocolVersion: Ours.PROTOCOL_VERSION,
            agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true }, mcpCapabilities: { http: true } },
            authMethods: [{ id: 'login', name: 'Log in' }],
            agentInfo: { name: 'agent', title: 'An agent', version: '0.1.0' },
        } satisfies Ours.InitializeResponse satisfies Sdk.InitializeResponse,
        Ours.InitializeResponseSchema,
    ],
    [
        'NewSessionRequest',
        {
            cwd: '/work',
            mcpServers: [
                { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/work'], env: [{ name: 'LOG', value: 'debug' }] },
                { type: 'http', name: 'remote', url: 'https://mcp.example/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
            ],
        } satisfies Ours.NewSessionRequest satisfies Sdk.NewSessionRequest,
        Ours.NewSessionRequestSchema,
    ],
    [
        'NewSessionResponse',
        {
            sessionId: 'sess-1',
            modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code', description: 'Writes code' }] },
        } satisfies Ours.NewSessionResponse satisfies Sdk.NewSessionResponse,
        Ours.NewSessionResponseSchema,
    ],
    [
        'PromptRequest',
        {
            sessionId: 'sess-1',
            prompt: [
                { type: 'text', text: 'Fix the bug in' },
                { type: 'resource_link', uri: 'file:///work/a.ts', name: 'a.ts' },
                { type: 'resource', resource: { uri: 'file:///work/b.ts', text: 'let b = 2;', mimeType: 'text/typescript' } },
                { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            ],
        } satisfies Ours.PromptRequest satisfies Sdk.PromptRequest,
        Ours.PromptRequestSchema,
    ],
    ['PromptResponse', { stopReason: 'end_turn' } satisfies Ours.PromptResponse satisfies Sdk.PromptResponse, Ours.PromptResponseSchema],
    [
        'SessionNotification (a tool call)',
        {
            sessionId: 'sess-1',
            update: {
                sessionUpdate: 'tool_call',
                toolCallId: 'call-1',
                title: 'Edit a.ts',
                kind: 'edit',
                status: 'in_progress',
                content: [{ type: 'diff', path: '/work/a.ts', oldText: 'let a = 1;', newText: 'let a = 2;' }],
                locations: [{ path: '/work/a.ts', line: 1 }],
            },
        } satisfies Ours.SessionNotification satisfies Sdk.SessionNotification,
        Ours.SessionNotificationSchema,
    ],
    [
        'SessionNotification (a plan)',
        {
            sessionId: 'sess-1',
            update: { sessionUpdate: 'plan', entries: [{ content: 'Read a.ts', priority: 'high', status: 'completed' }] },
        } satisfies Ours.SessionNotification satisfies Sdk.SessionNotification,
        Ours.SessionNotificationSchema,
    ],
    [
        'SessionNotification (a message chunk)',
        { sessionId: 'sess-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' } } } satisfies Ours.SessionNotification satisfies Sdk.SessionNotification,
        Ours.SessionNotificationSchema,
    ],
    [
        'RequestPermissionRequest',
        {
            sessionId: 'sess-1',
            toolCall: { toolCallId: 'call-1', title: 'Edit a.ts', kind: 'edit', status: 'pending' },
            options: [
                { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
                { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
                { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
            ],
        } satisfies Ours.RequestPermissionRequest satisfies Sdk.RequestPermissionRequest,
        Ours.RequestPermissionRequestSchema,
    ],
    [
        'RequestPermissionResponse',
        { outcome: { outcome: 'selected', optionId: 'allow' } } satisfies Ours.RequestPermissionResponse satisfies Sdk.RequestPermissionResponse,
        Ours.RequestPermissionResponseSchema,
    ],
    [
        'RequestPermissionResponse (cancelled)',
        { outcome: { outcome: 'cancelled' } } satisfies Ours.RequestPermissionResponse satisfies Sdk.RequestPermissionResponse,
        Ours.RequestPermissionResponseSchema,
    ],
    [
        'ReadTextFileRequest',
        { sessionId: 'sess-1', path: '/work/a.ts', line: 10, limit: 20 } satisfies Ours.ReadTextFileRequest satisfies Sdk.ReadTextFileRequest,
        Ours.ReadTextFileRequestSchema,
    ],
    ['ReadTextFileResponse', { content: 'let a = 1;\n' } satisfies Ours.ReadTextFileResponse satisfies Sdk.ReadTextFileResponse, Ours.ReadTextFileResponseSchema],
    ['CancelNotification', { sessionId: 'sess-1' } satisfies Ours.CancelNotification satisfies Sdk.CancelNotification, Ours.CancelNotificationSchema],
];

test('each value, of our type and the SDK\'s, is accepted unchanged by our schema', () => {
    for (const [name, value, schema] of values) {
        const r = Ours.parseWith(schema, value);
        assert.ok(r.ok, `${name}: ${r.ok ? '' : r.message}`);
        assert.deepEqual(r.value, value, name);
    }
});
