// What this client sends is valid by the generated schemas, and its options parse.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClientFrame } from '@adecore/connect-frames';
import { hello, options, post } from '../src/write-and-catch-up.js';

test('the frames this client sends are valid client frames', () => {
    for (const frame of [hello(), post('spc_demo', 'hi', 'k-1')]) {
        const r = parseClientFrame(frame);
        assert.ok(r.ok, r.ok ? '' : r.message);
    }
});

test('an event without its own key is refused before it is sent', () => {
    const r = parseClientFrame({ frame: 'event', event: { type: 'message.post', space_id: 's', text: 't' } });
    assert.equal(r.ok, false);
});

test('options have defaults and take flags', () => {
    const o = options(['--url', 'ws://h:1/v1/ws', '--token', 't']);
    assert.equal(o.url, 'ws://h:1/v1/ws');
    assert.equal(o.token, 't');
    assert.equal(o.otherToken, 'dana-token');
    assert.equal(o.workspace, 'ws_demo');
});
