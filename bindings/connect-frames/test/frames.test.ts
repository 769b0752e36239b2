// The Agent Connect frames as a client parses them, with the spec's own examples.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClientFrame, parseServerFrame } from '@adecore/connect-frames';

test("the spec's client frames parse", () => {
    const hello = parseClientFrame({ frame: 'hello', protocol: { min: 1, max: 1 }, client: { name: 'scout', version: '0.1.0' }, accepts: ['events'] });
    assert.equal(hello.ok, true, hello.ok ? '' : hello.message);
    assert.equal(parseClientFrame({ frame: 'ping', ts: 1790000000000 }).ok, true);
});

test('a hello context takes its defaults when absent', () => {
    const hello = parseClientFrame({ frame: 'hello', protocol: { min: 1, max: 1 }, client: { name: 'scout', version: '0.1.0' }, context: {} });
    assert.ok(hello.ok && hello.value.frame === 'hello');
    assert.deepEqual(hello.value.context, { lines: 40, chars: 16000 });
});

test('unknown frames are refused with the discriminator message', () => {
    const r = parseServerFrame({ frame: 'nope' });
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.message, /^✖ Invalid discriminator value\. Expected /);
    assert.equal(parseServerFrame(null).ok, false);
});

test('a replay page holds at most 500 events', () => {
    const r = parseServerFrame({ frame: 'events', events: [] });
    assert.equal(r.ok ? '' : r.message, '✖ Too small: expected array to have >=1 items\n  → at events');
});
