// The official MCP TypeScript SDK's Client (@modelcontextprotocol/sdk, pinned in
// ../package-lock.json) against examples/mcp-server, over stdio (StdioClientTransport spawns
// `mcp-server --stdio`) and over Streamable HTTP (StreamableHTTPClientTransport to a server
// this test starts with `--http 127.0.0.1:0`): initialize, list and call every tool (answering
// its sampling and elicitation requests, hearing its log messages and progress), read every
// resource, get every prompt, complete an argument, and the refusals MCP 2025-11-25 asks for:
// an unknown tool and an unknown prompt are JSON-RPC errors -32602, an unknown resource
// -32002.
//
// Run by examples/mcp-server/tests/sdk.rs with MCP_SERVER_BIN set to the binary; by hand:
//   MCP_SERVER_BIN=target/debug/mcp-server node --test tests/conformance/sdk/client.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const BIN = process.env.MCP_SERVER_BIN;
if (!BIN) {
  throw new Error('MCP_SERVER_BIN must name the mcp-server binary');
}

/** Starts `mcp-server --http 127.0.0.1:0` and answers it with the URL of its first line. */
async function startHttp() {
  const child = spawn(BIN, ['--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('mcp-server printed no URL within 30s')), 30_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`mcp-server exited (${code}) before its URL`)));
  });
  const url = first.replace(/^listening on /, '');
  assert.notEqual(url, first, `unexpected first line: ${first}`);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  return { child, url };
}

/** A client that declares sampling and elicitation and keeps what the server sends it. */
function makeClient() {
  const client = new Client(
    { name: 'sdk-interop-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  const heard = { logs: [], progress: [], sampling: [], elicitation: [] };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    heard.logs.push(n.params);
  });
  // Every progress notification, heard directly (as the conformance suite's collector does):
  // the SDK's own `onprogress` drops one that arrives in the same read as its response
  // (modelcontextprotocol/typescript-sdk#2580), which stdio does with the last one.
  client.setNotificationHandler(ProgressNotificationSchema, (n) => {
    heard.progress.push(n.params);
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    heard.sampling.push(request.params);
    return {
      role: 'assistant',
      content: { type: 'text', text: 'a reply from the SDK client' },
      model: 'sdk-test-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    heard.elicitation.push(request.params);
    const fields = Object.keys(request.params.requestedSchema.properties);
    const content = Object.fromEntries(fields.map((f) => [f, valueFor(request.params.requestedSchema.properties[f])]));
    return { action: 'accept', content };
  });
  return { client, heard };
}

/** A value a form field of this schema accepts. */
function valueFor(schema) {
  if (schema.type === 'array') {
    const options = schema.items.enum ?? schema.items.anyOf.map((o) => o.const);
    return [options[0]];
  }
  if (schema.enum) return schema.enum[0];
  if (schema.oneOf) return schema.oneOf[0].const;
  if (schema.type === 'boolean') return !schema.default;
  if (schema.type === 'integer' || schema.type === 'number') return 7;
  return 'sdk@example.com';
}

/** The text of a tool result's only block. */
function onlyText(result) {
  assert.equal(result.content.length, 1, JSON.stringify(result));
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
}

/** Answers the JSON-RPC error a call is refused with. */
async function refusal(promise) {
  try {
    const answer = await promise;
    assert.fail(`answered ${JSON.stringify(answer)}`);
  } catch (e) {
    assert.ok(e instanceof McpError, `not an McpError: ${e}`);
    return e;
  }
}

const TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_reconnection',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
];

/**
 * Everything a client does, over a connected `client`; `streams` says whether the transport
 * has response streams the server can end early (Streamable HTTP) or not (stdio).
 */
async function exercise(client, heard, streams) {
  // initialize: what the server said about itself.
  assert.equal(client.getServerVersion().name, 'mcp-server');
  const caps = client.getServerCapabilities();
  for (const key of ['tools', 'prompts', 'logging', 'completions']) {
    assert.ok(caps[key], `capability ${key}`);
  }
  assert.equal(caps.resources.subscribe, true);
  assert.ok(client.getInstructions().length > 0);
  assert.deepEqual(await client.ping(), {});

  // Every tool, listed and called.
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), TOOLS);
  await client.setLoggingLevel('debug');
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object');
    const args = Object.fromEntries((tool.inputSchema.required ?? []).map((name) => [name, `a ${name}`]));
    const progressToken = `progress-of-${tool.name}`;
    const result = await client.request(
      { method: 'tools/call', params: { name: tool.name, arguments: args, _meta: { progressToken } } },
      CallToolResultSchema,
    );
    const progress = heard.progress.filter((p) => p.progressToken === progressToken);
    const kinds = result.content.map((c) => c.type);
    switch (tool.name) {
      case 'test_simple_text':
        assert.equal(onlyText(result), 'This is a simple text response for testing.');
        break;
      case 'test_image_content':
        assert.deepEqual(kinds, ['image']);
        assert.equal(result.content[0].mimeType, 'image/png');
        assert.equal(Buffer.from(result.content[0].data, 'base64').subarray(1, 4).toString(), 'PNG');
        break;
      case 'test_audio_content':
        assert.deepEqual(kinds, ['audio']);
        assert.equal(result.content[0].mimeType, 'audio/wav');
        assert.equal(Buffer.from(result.content[0].data, 'base64').subarray(0, 4).toString(), 'RIFF');
        break;
      case 'test_embedded_resource':
        assert.deepEqual(kinds, ['resource']);
        assert.equal(result.content[0].resource.uri, 'test://embedded-resource');
        break;
      case 'test_multiple_content_types':
        assert.deepEqual(kinds, ['text', 'image', 'resource']);
        assert.deepEqual(JSON.parse(result.content[2].resource.text), { test: 'data', value: 123 });
        break;
      case 'test_tool_with_logging': {
        const data = heard.logs.map((l) => l.data);
        for (const line of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
          assert.ok(data.includes(line), `log ${line} not heard: ${JSON.stringify(data)}`);
        }
        break;
      }
      case 'test_tool_with_progress':
        assert.deepEqual(progress.map((p) => [p.progress, p.total]), [[0, 100], [50, 100], [100, 100]]);
        break;
      case 'test_error_handling':
        assert.equal(result.isError, true);
        assert.equal(onlyText(result), 'This tool intentionally returns an error for testing');
        break;
      case 'test_reconnection':
        // Over HTTP the server ends the call's stream and the SDK reconnects for the answer.
        assert.equal(
          onlyText(result),
          streams
            ? 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.'
            : 'Reconnection test completed: this transport has no stream to close.',
        );
        break;
      case 'test_sampling':
        assert.equal(onlyText(result), 'LLM response: a reply from the SDK client');
        assert.deepEqual(heard.sampling.at(-1).messages, [
          { role: 'user', content: { type: 'text', text: 'a prompt' } },
        ]);
        break;
      case 'test_elicitation':
        assert.equal(
          onlyText(result),
          'User response: action=accept, content={"email":"sdk@example.com","username":"sdk@example.com"}',
        );
        assert.equal(heard.elicitation.at(-1).message, 'a message');
        break;
      case 'test_elicitation_sep1034_defaults':
        assert.match(onlyText(result), /^Elicitation completed: action=accept, content=\{.*"verified":false/);
        assert.equal(heard.elicitation.at(-1).requestedSchema.properties.name.default, 'John Doe');
        break;
      case 'test_elicitation_sep1330_enums':
        assert.match(onlyText(result), /"titledMulti":\["value1"\]/);
        break;
      case 'json_schema_2020_12_tool':
        assert.equal(onlyText(result), 'JSON Schema 2020-12 tool called with: {}');
        assert.equal(tool.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
        assert.equal(tool.inputSchema.additionalProperties, false);
        break;
      default:
        assert.fail(`no check for tool ${tool.name}`);
    }
    if (tool.name !== 'test_error_handling') {
      assert.notEqual(result.isError, true, `${tool.name}: ${JSON.stringify(result)}`);
    }
  }
  // MCP 2025-11-25, tools, "Error Handling": an unknown tool is a protocol error.
  const unknown = await refusal(client.callTool({ name: 'no_such_tool', arguments: {} }));
  assert.equal(unknown.code, -32602);
  assert.match(unknown.message, /Unknown tool: no_such_tool/);

  // Every resource and the template.
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), ['test://static-text', 'test://static-binary', 'test://watched-resource']);
  for (const resource of resources) {
    const { contents } = await client.readResource({ uri: resource.uri });
    assert.equal(contents[0].uri, resource.uri);
    assert.equal(contents[0].mimeType, resource.mimeType);
    assert.ok(contents[0].text ?? contents[0].blob);
  }
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.equal(resourceTemplates[0].uriTemplate, 'test://template/{id}/data');
  const templated = await client.readResource({ uri: 'test://template/42/data' });
  assert.equal(JSON.parse(templated.contents[0].text).id, '42');
  const missing = await refusal(client.readResource({ uri: 'test://missing' }));
  assert.equal(missing.code, -32002);
  assert.deepEqual(await client.subscribeResource({ uri: 'test://watched-resource' }), {});
  assert.deepEqual(await client.unsubscribeResource({ uri: 'test://watched-resource' }), {});

  // Every prompt, with its arguments.
  const { prompts } = await client.listPrompts();
  assert.equal(prompts.length, 4);
  for (const prompt of prompts) {
    const args = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, `test://value-of-${a.name}`]));
    const got = await client.getPrompt({ name: prompt.name, arguments: args });
    assert.ok(got.messages.length > 0);
    for (const value of Object.values(args)) {
      assert.ok(JSON.stringify(got.messages).includes(value), `${prompt.name} lacks ${value}`);
    }
  }
  const unknownPrompt = await refusal(client.getPrompt({ name: 'no_such_prompt' }));
  assert.equal(unknownPrompt.code, -32602);

  // Completion of a prompt's argument.
  const completed = await client.complete({
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'pa' },
  });
  assert.deepEqual(completed.completion.values, ['paris', 'park', 'party']);
}

test('the SDK client over stdio', async () => {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], stderr: 'inherit' });
  const { client, heard } = makeClient();
  await client.connect(transport);
  try {
    await exercise(client, heard, false);
  } finally {
    await client.close();
  }
});

test('the SDK client over Streamable HTTP', async () => {
  const { child, url } = await startHttp();
  try {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const { client, heard } = makeClient();
    await client.connect(transport);
    assert.ok(transport.sessionId, 'the server gave a session id');
    assert.equal(transport.protocolVersion, '2025-11-25');
    await exercise(client, heard, true);
    // DELETE ends the session: a request in it is then refused (404, as MCP says).
    const session = transport.sessionId;
    await transport.terminateSession();
    const after = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(after.status, 404);
    await client.close();
  } finally {
    child.kill();
  }
});
