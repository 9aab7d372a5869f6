#!/usr/bin/env node
// A stdio MCP server that ignores the end of its input: the shape of the
// servers that outlive their client (an email server's mail poll, a
// browser it keeps). It answers initialize, tools/list and tools/call
// (one tool, echo) through the TypeScript SDK's StdioServerTransport,
// whose only listeners on stdin are 'data' and 'error'; it keeps a timer
// and never exits when stdin ends. It also starts one child of its own
// that holds none of its stdio (as a browser would), so that a server is
// a tree even when started without npm exec.
//
// It is a test fixture for e2e/mcp_linux_test.go.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

// The child: a node that waits forever, with no stdio of the server's.
spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });

// The timer that keeps the event loop alive after stdin ends (a poll of
// a mailbox, a heartbeat).
setInterval(() => {}, 1000);

const server = new Server({ name: 'deaf-server', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'echo',
      description: 'Echoes back the input',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string', description: 'Message to echo' } },
        required: ['message'],
      },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name !== 'echo') {
    throw new Error(`unknown tool ${req.params.name}`);
  }
  return { content: [{ type: 'text', text: `Echo: ${req.params.arguments?.message}` }] };
});

// Deaf: no 'end' or 'close' listener on stdin, and none added by the
// transport. An error on stdout (EPIPE once the client is gone) is
// ignored too.
process.stdout.on('error', () => {});
await server.connect(new StdioServerTransport());
