#!/usr/bin/env node
// An MCP client as editors and agent CLIs are: the TypeScript SDK's Client
// over a StdioClientTransport, which starts the server. It is a test
// driver for e2e/mcp_linux_test.go.
//
//	node client.mjs CONFIG SCENARIO
//
// CONFIG is JSON: {"command", "args", "env", "cwd", "call": {"name",
// "arguments"}}, the first four as an MCP client's configuration names
// a stdio server. The client connects, lists the tools, calls
// config.call when there is one, and prints one line of JSON:
// {"client": its PID, "pid": the transport's PID (the process it
// started), "server": the server's name and version, "tools": the
// tools/list result, "result": the tools/call result}. Then it waits for
// one line on its standard input and does SCENARIO:
//
//	close  client.close(): the SDK ends the server's stdin, waits 2 s,
//	       sends TERM, waits 2 s, sends KILL. Prints {"done": "close"}.
//	exit   process.exit(0) without closing anything.
//	hang   nothing: it waits forever, for the test to SIGKILL it.
//	drop   destroys the server's stdin and stdout streams (closes the
//	       client's ends, no signal, no exit), as a client that drops a
//	       session and keeps running. Prints {"done": "drop"}.
//	call   a live session: each line calls config.call again and
//	       prints {"result": the tools/call result}.
//
// After close and drop it stays until its own standard input ends, then
// exits. Errors go to stderr as lines of JSON, and exit 1 before the
// scenario.
import process from 'node:process';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [configText, scenario] = process.argv.slice(2);
if (!configText || !['close', 'exit', 'hang', 'drop', 'call'].includes(scenario)) {
  console.error('usage: node client.mjs CONFIG close|exit|hang|drop|call');
  process.exit(2);
}
const config = JSON.parse(configText);

// Keeps the event loop alive whatever the scenario leaves behind.
setInterval(() => {}, 1000);

function say(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

const transport = new StdioClientTransport({
  command: config.command,
  args: config.args ?? [],
  env: config.env,
  cwd: config.cwd,
});
const client = new Client({ name: 'tether-e2e-client', version: '1.0.0' }, { capabilities: {} });
client.onerror = (err) => console.error(JSON.stringify({ onerror: String(err) }));

let hello;
try {
  await client.connect(transport);
  const tools = await client.listTools();
  let result = null;
  if (config.call) {
    result = await client.callTool({ name: config.call.name, arguments: config.call.arguments ?? {} });
  }
  hello = {
    client: process.pid,
    pid: transport.pid,
    server: client.getServerVersion(),
    tools,
    result,
  };
} catch (err) {
  console.error(JSON.stringify({ error: String(err?.stack ?? err) }));
  process.exit(1);
}
say(hello);

const lines = readline.createInterface({ input: process.stdin });
let started = false;
lines.on('line', async () => {
  if (scenario === 'call') {
    try {
      say({ result: await client.callTool({ name: config.call.name, arguments: config.call.arguments ?? {} }) });
    } catch (err) {
      say({ error: String(err) });
    }
    return;
  }
  if (started) {
    return;
  }
  started = true;
  switch (scenario) {
    case 'close':
      await client.close();
      say({ done: 'close' });
      break;
    case 'exit':
      process.exit(0);
      break;
    case 'hang':
      break;
    case 'drop': {
      // The SDK keeps the child process private: _process, a Node
      // ChildProcess whose stdin and stdout are the client's ends.
      const child = transport._process;
      if (!child || !child.stdin || !child.stdout) {
        say({ done: 'drop', error: 'StdioClientTransport has no _process with stdin and stdout' });
        break;
      }
      child.stdin.destroy();
      child.stdout.destroy();
      say({ done: 'drop' });
      break;
    }
  }
});
lines.on('close', () => {
  if (scenario !== 'hang') {
    process.exit(0);
  }
});
