// The official TypeScript SDK's Client as a driver of `cargo xtask bench-mcp`
// (xtask/src/bench_mcp.rs): the second client the benchmark measures every server with, beside
// the generated Rust client (examples/mcp-server/examples/mcp-bench-client.rs), which speaks
// the same line protocol. One JSON command per line on stdin, one JSON answer per line on
// stdout:
//
//   {"op":"connect","name":N,"tool":T,"stdio":[CMD,ARG...]}   spawn CMD and talk over its pipes
//   {"op":"connect","name":N,"tool":T,"url":U}                Streamable HTTP to U
//     -> {"ok":true,"pid":PID|null,"server":"NAME VERSION","result":{...}}: initialized,
//        `tools/list` holds T, and one `tools/call` of T answered `result`
//   {"op":"round","name":N,"calls":K,"concurrency":C}
//     -> {"ok":true,"seconds":S}: K calls of T (no arguments), C in flight at a time, each
//        answer checked (one content block, not an error)
//   end of stdin: every connection closed (stdio servers end with their stdin), then exit
//
// A failure answers {"ok":false,"error":MESSAGE} and the driver goes on reading.
// Run by the xtask only; by hand: node tests/conformance/sdk/bench-client.mjs

import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The connected servers by name: `{ client, transport, tool }`. */
const servers = new Map();

/** Connects to one server, checks its tool, and answers what the first call gave. */
async function connect({ name, tool, stdio, url }) {
  if (servers.has(name)) throw new Error(`${name} is already connected`);
  let transport;
  if (Array.isArray(stdio) && stdio.length > 0) {
    const [command, ...args] = stdio;
    transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
  } else if (typeof url === 'string') {
    transport = new StreamableHTTPClientTransport(new URL(url));
  } else {
    throw new Error('connect needs `stdio` (a non-empty command line) or `url`');
  }
  const client = new Client({ name: 'bench-mcp-sdk-client', version: '1.0.0' });
  await client.connect(transport);
  servers.set(name, { client, transport, tool });
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === tool)) {
    throw new Error(`${name} lists no tool ${tool}: ${tools.map((t) => t.name).join(', ')}`);
  }
  const result = await call(name);
  const info = client.getServerVersion();
  return {
    pid: transport.pid ?? null,
    server: `${info?.name} ${info?.version}`,
    result,
  };
}

/** One call of the server's tool, its answer checked. */
async function call(name) {
  const { client, tool } = servers.get(name);
  const result = await client.callTool({ name: tool });
  if (result.isError === true || !Array.isArray(result.content) || result.content.length !== 1) {
    throw new Error(`${tool} answered ${JSON.stringify(result)}`);
  }
  return result;
}

/** `calls` calls, `concurrency` at a time; answers the seconds they took. */
async function round({ name, calls, concurrency }) {
  if (!servers.has(name)) throw new Error(`${name} is not connected`);
  if (!(Number.isInteger(calls) && calls > 0 && Number.isInteger(concurrency) && concurrency > 0)) {
    throw new Error('a round needs positive integers `calls` and `concurrency`');
  }
  let left = calls;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      await call(name);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, worker));
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

/** Answers one command line. */
async function answer(line) {
  try {
    const command = JSON.parse(line);
    switch (command.op) {
      case 'connect':
        return { ok: true, ...(await connect(command)) };
      case 'round':
        return { ok: true, ...(await round(command)) };
      default:
        throw new Error(`unknown op ${JSON.stringify(command.op)}`);
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await answer(line))}\n`);
}
for (const { client } of servers.values()) {
  await client.close().catch(() => {});
}
