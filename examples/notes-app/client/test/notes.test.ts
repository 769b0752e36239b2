// The notes app's package against its Rust host: an app request, an app event and an agent
// request over one WebSocket. NOTES_URL is the host's address (`cargo run -- 127.0.0.1:0`
// prints it); without it the test is skipped.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContractClient, RequestError } from '@adecore/agent-contracts';
import { connectNodePort } from '@adecore/agent-contracts/node';
import { NOTES_EVENT_SCHEMAS, NOTES_REQUEST_SCHEMAS, parseServerFrameTyped } from '@acme/notes-contracts';

const url = process.env.NOTES_URL;

test('notes and chats over one WebSocket', { skip: url === undefined && 'NOTES_URL is not set' }, async () => {
    const port = await connectNodePort(url!);
    const client = new ContractClient(port, {
        requests: NOTES_REQUEST_SCHEMAS,
        events: NOTES_EVENT_SCHEMAS,
        parseFrame: parseServerFrameTyped,
    });
    try {
        const changed = new Promise((resolve) => client.on('note.changed', resolve));
        await client.request('note.write', { id: 'n1', text: 'milk' });
        assert.deepEqual(await changed, { id: 'n1' });
        assert.equal((await client.request('note.read', { id: 'n1' })).text, 'milk');
        assert.deepEqual((await client.request('chat.list', {})).chats, []);
        // The app's own error code, as the host refuses.
        await assert.rejects(client.request('note.read', { id: 'n2' }), (e: unknown) => {
            return e instanceof RequestError && e.code === 'unknown-note';
        });
    } finally {
        client.close();
        port.close();
    }
});
