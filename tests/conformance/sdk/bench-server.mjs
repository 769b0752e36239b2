// The official TypeScript SDK's side of `cargo xtask bench-mcp` (xtask/src/bench_mcp.rs): an
// McpServer (@modelcontextprotocol/sdk, pinned in ../package-lock.json) with the one tool the
// benchmark calls, `test_simple_text` as the conformance suite defines it (no arguments, one
// text block), the tool examples/mcp-server answers on the other side. The driver checks both
// servers give the same result before it measures anything.
//
// Over stdio by default; with `--http`, over the SDK's Streamable HTTP transport on a free port
// of 127.0.0.1 (node's http server, one session, the first line on stdout
// `listening on http://127.0.0.1:PORT/mcp`), answering each POST as an event stream (the SDK's
// default); `--json` answers it as application/json instead (`enableJsonResponse`).
// Run: node tests/conformance/sdk/bench-server.mjs [--http [--json]]

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const server = new McpServer({ name: 'sdk-bench-server', version: '1.0.0' });

server.registerTool(
  'test_simple_text',
  { description: 'Tests simple text content response' },
  async () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }),
);

if (process.argv.includes('--http')) {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: process.argv.includes('--json'),
  });
  await server.connect(transport);
  const http = createServer((req, res) => {
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    transport.handleRequest(req, res).catch((e) => {
      console.error('sdk bench server:', e);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.listen(0, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${http.address().port}/mcp`);
  });
} else {
  await server.connect(new StdioServerTransport());
}
