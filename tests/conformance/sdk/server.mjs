// An MCP server built with the official TypeScript SDK's McpServer (@modelcontextprotocol/sdk,
// pinned in ../package-lock.json), for the generated Rust MCP client to talk to
// (examples/mcp-server/tests/sdk.rs): over stdio, or with `--http` over the SDK's Streamable
// HTTP transport on a free port of 127.0.0.1 (one session; the first line on stdout is
// `listening on http://127.0.0.1:PORT/mcp`). Its tools:
// - `echo` (`text`): answers the text;
// - `add` (`a`, `b`): answers the sum, as text and as structured content;
// - `ask_llm` (`question`): asks the client to sample an LLM (`sampling/createMessage`) and
//   answers `the model said: <reply>`.
// Run: node tests/conformance/sdk/server.mjs [--http]

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const server = new McpServer({ name: 'sdk-fixture-server', version: '1.0.0' });

server.registerTool(
  'echo',
  { description: 'Answers its text', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

server.registerTool(
  'add',
  {
    description: 'Adds two numbers',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  },
  async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
    structuredContent: { sum: a + b },
  }),
);

server.registerTool(
  'ask_llm',
  { description: "Asks the client's LLM a question", inputSchema: { question: z.string() } },
  async ({ question }) => {
    const reply = await server.server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: question } }],
      maxTokens: 50,
    });
    const text = reply.content.type === 'text' ? reply.content.text : `(${reply.content.type})`;
    return { content: [{ type: 'text', text: `the model said: ${text}` }] };
  },
);

if (process.argv.includes('--http')) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const http = createServer((req, res) => {
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    transport.handleRequest(req, res).catch((e) => {
      console.error('sdk server:', e);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.listen(0, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${http.address().port}/mcp`);
  });
} else {
  await server.connect(new StdioServerTransport());
}
