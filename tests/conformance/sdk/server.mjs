// An MCP server built with the official TypeScript SDK's McpServer (@modelcontextprotocol/sdk,
// pinned in ../package-lock.json), served over stdio, for the generated Rust MCP client to
// talk to (examples/mcp-server/tests/sdk.rs). Its tools:
// - `echo` (`text`): answers the text;
// - `add` (`a`, `b`): answers the sum, as text and as structured content;
// - `ask_llm` (`question`): asks the client to sample an LLM (`sampling/createMessage`) and
//   answers `the model said: <reply>`.
// Run: node tests/conformance/sdk/server.mjs (then speak newline-delimited JSON-RPC on stdin).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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

await server.connect(new StdioServerTransport());
