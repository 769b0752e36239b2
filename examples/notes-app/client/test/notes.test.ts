// The notes app's package against its Rust host: an app request, an app event and an agent
// request over one WebSocket. NOTES_URL is a running host's address; without it the test
// starts the app's host itself (`cargo run -- 127.0.0.1:0` in the app's root, which prints
// the address), so `npm test` after `cargo test` needs nothing else.

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContractClient, RequestError } from '@adecore/agent-contracts';
import { connectNodePort } from '@adecore/agent-contracts/node';
import { NOTES_EVENT_SCHEMAS, NOTES_REQUEST_SCHEMAS, parseServerFrameTyped } from '@acme/notes-contracts';

/** The host's address: NOTES_URL, or the one a host started here prints first. */
async function host(): Promise<{ url: string; child?: ChildProcess }> {
    if (process.env.NOTES_URL !== undefined) return { url: process.env.NOTES_URL };
    // dist/test/ is three levels below the app's root.
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const child = spawn('cargo', ['run', '--quiet', '--', '127.0.0.1:0'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    for await (const line of lines) {
        const url = line.match(/^listening on (ws:\/\/\S+)$/)?.[1];
        if (url !== undefined) return { url, child };
    }
    throw new Error('the host ended without printing its address');
}

test('notes and chats over one WebSocket', async () => {
    const { url, child } = await host();
    try {
        await notesAndChats(url);
    } finally {
        child?.kill();
    }
});

/** An app request, an app event, an agent request and an app refusal, over one WebSocket. */
async function notesAndChats(url: string): Promise<void> {
    const port = await connectNodePort(url);
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
}
