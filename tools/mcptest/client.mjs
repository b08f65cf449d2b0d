// client.mjs drives `relay mcp` with the official MCP TypeScript SDK, as a
// third-party agent would: it spawns the server over stdio, initializes,
// lists the tools, makes the calls given in a JSON plan and prints one JSON
// document with everything it saw. The Go test (cmd/relay/mcp_test.go)
// checks that document.
//
// Usage: node client.mjs <relay binary> <repo dir> '<plan json>'
// plan: [{"label": "...", "name": "grep", "arguments": {...}}, ...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [relay, repo, planText] = process.argv.slice(2);
if (!relay || !repo || !planText) {
  console.error("usage: node client.mjs <relay binary> <repo dir> '<plan json>'");
  process.exit(2);
}
const plan = JSON.parse(planText);

const transport = new StdioClientTransport({
  command: relay,
  args: ["--repo", repo, "mcp"],
  stderr: "pipe",
});
let stderr = "";
transport.stderr?.on("data", (d) => { stderr += d.toString(); });

const client = new Client({ name: "relay-mcptest", version: "1.0.0" });
const out = { calls: {} };
try {
  await client.connect(transport);
  out.server = client.getServerVersion();
  out.instructions = client.getInstructions();
  out.capabilities = client.getServerCapabilities();
  const listed = await client.listTools();
  out.tools = listed.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    readOnly: t.annotations?.readOnlyHint ?? false,
  }));
  for (const step of plan) {
    try {
      const r = await client.callTool({ name: step.name, arguments: step.arguments });
      out.calls[step.label] = {
        isError: r.isError === true,
        text: (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
      };
    } catch (e) {
      out.calls[step.label] = { protocolError: true, code: e.code ?? null, message: String(e.message ?? e) };
    }
  }
} catch (e) {
  out.fatal = String(e?.stack ?? e);
} finally {
  await client.close().catch(() => {});
}
out.stderr = stderr;
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
process.exit(out.fatal ? 1 : 0);
