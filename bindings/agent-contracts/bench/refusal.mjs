// The Zod side of "A refusal's cost" (docs/benchmarks.md): a chat.send request of about 1 MiB
// whose payload holds 349,525 empty attachments (three issues each) is written to the file named
// on the command line (for the Rust side: `contracts-validate agent request < FILE`), then parsed
// by this package's `parseRequestTyped`. Prints the CPU time and the message's size; run it
// under `/usr/bin/time -v` for the peak RSS. Needs `npm run build` first.
//
//   node bench/refusal.mjs /tmp/send.jsonl

import { writeFileSync } from 'node:fs';
import { parseRequestTyped } from '../dist/src/index.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: node bench/refusal.mjs FILE');
const n = 349_525;
const text = `{"id":"1","type":"chat.send","payload":{"chatId":"c","text":"hi","attachments":[${Array(n).fill('{}').join(',')}]}}`;
writeFileSync(file, `${text}\n`);
const start = process.cpuUsage();
const r = parseRequestTyped(JSON.parse(text));
const used = process.cpuUsage(start);
const message = r.ok ? '' : r.message;
console.log(JSON.stringify({
    frame_bytes: Buffer.byteLength(text),
    cpu_s: (used.user + used.system) / 1e6,
    message_bytes: Buffer.byteLength(message),
    last_line: message.slice(message.lastIndexOf('\n') + 1),
}));
