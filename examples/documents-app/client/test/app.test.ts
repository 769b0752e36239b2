// The documents app's package against the Rust host (examples/documents-app): agent requests
// and app requests over one WebSocket, agent events and app events on one client. The host's
// address comes from DOCUMENTS_URL (the Rust test `node_client` starts the host and sets it);
// without it the test is skipped.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
    createDocumentsClient,
    DOCUMENTS_REQUEST_TYPES,
    parseDocumentsEventPayload,
    RequestError,
    type DocumentsClient,
    type DocumentsEventPayload,
    type DocumentsEventType,
} from '@adecore/documents-contracts';
import { connectNodePort } from '@adecore/agent-contracts/node';

const url = process.env.DOCUMENTS_URL;

/** The next payload of `event`, failing after two seconds. */
function next<K extends DocumentsEventType>(client: DocumentsClient, event: K): Promise<DocumentsEventPayload<K>> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${event} within 2s`)), 2000);
        const stop = client.on(event, (payload) => {
            clearTimeout(timer);
            stop();
            resolve(payload);
        });
    });
}

test('the app table holds the agent names and the app names', () => {
    assert.ok(DOCUMENTS_REQUEST_TYPES.includes('chat.list'));
    assert.ok(DOCUMENTS_REQUEST_TYPES.includes('document.read'));
    assert.deepEqual(parseDocumentsEventPayload('document.changed', { id: '' }).ok, false);
});

test('agent and app requests and events over one WebSocket', { skip: url === undefined && 'DOCUMENTS_URL is not set' }, async () => {
    const port = await connectNodePort(url!);
    const client = createDocumentsClient(port);
    try {
        // An agent request and event: chat.create makes every client hear chat.status.
        const status = next(client, 'chat.status');
        const created = await client.request('chat.create', { title: 'Docs' });
        assert.equal((await status).info.title, 'Docs');
        const list = await client.request('chat.list', {});
        assert.ok(list.chats.some((c) => c.chatId === created.chatId));

        // An app request and event.
        const changed = next(client, 'document.changed');
        await client.request('document.write', { id: 'notes', text: 'first draft' });
        assert.deepEqual(await changed, { id: 'notes' });
        const read = await client.request('document.read', { id: 'notes' });
        assert.equal(read.text, 'first draft');

        // An app request that uses an agent type in its result.
        const attached = await client.request('document.attachToChat', { id: 'notes', chatId: created.chatId });
        assert.equal(attached.info.chatId, created.chatId);

        // The host's refusals come back as RequestErrors with the agent's codes or the app's.
        await assert.rejects(client.request('document.read', { id: 'nope' }), (e: unknown) => {
            return e instanceof RequestError && e.code === 'unknown-document';
        });
        await assert.rejects(client.request('chat.fork', { chatId: created.chatId, itemId: 'i1' }), (e: unknown) => {
            return e instanceof RequestError && e.code === 'chat-unsupported';
        });
    } finally {
        client.close();
        port.close();
    }
});
