// Drives an ACP agent (gocodex acp, or Zed's codex-acp adapter as the reference) with the
// official client SDK, as an editor would, through the scenario of e2e/acp_test.go. The Go
// test scripts the model; this script only plays the editor and prints one JSON report.
//
// Environment: ACP_AGENT (a JSON array: the agent's argv), ACP_CWD (the session's folder),
// ACP_FS ("1": the client offers fs/read_text_file and fs/write_text_file), ACP_PHASES (a
// comma list of phases to run, default all).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const argv = JSON.parse(process.env.ACP_AGENT);
const cwd = process.env.ACP_CWD;
const fsOn = process.env.ACP_FS === "1";
// ACP_MCP: the session's MCP servers (JSON), given to session/new.
const mcpServers = JSON.parse(process.env.ACP_MCP || "[]");
const phases = (process.env.ACP_PHASES || "prompt,reject,cancel,load,errors").split(",");
const report = { phases: {}, fsCalls: [], permissionRequests: [], errors: {} };

function start() {
  const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, stream };
}

// stop ends an agent and waits for it (it may have gone already, its stdin closed).
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((res) => child.on("exit", res));
  child.kill();
  return exited;
}

let current = null; // the phase whose notifications are being collected
let onUpdate = null; // a hook a phase sets to act on an update (cancel mid-turn)
let rejectNext = false;

function clientApp() {
  return acp
    .client({ name: "gocodex-e2e" })
    .onNotification("session/update", async ({ params }) => {
      if (process.env.ACP_DEBUG) console.error("update", JSON.stringify(params.update).slice(0, 200));
      if (current) current.updates.push(params.update);
      if (onUpdate) onUpdate(params.update);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      report.permissionRequests.push({ phase: current?.name, toolCall: params.toolCall, options: params.options });
      const want = rejectNext ? "reject_once" : "allow_once";
      const option = params.options.find((o) => o.kind === want);
      if (!option) return { outcome: { outcome: "cancelled" } };
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest("fs/read_text_file", async ({ params }) => {
      report.fsCalls.push({ method: "fs/read_text_file", path: params.path });
      const fs = await import("node:fs/promises");
      return { content: await fs.readFile(params.path, "utf8") };
    })
    .onRequest("fs/write_text_file", async ({ params }) => {
      report.fsCalls.push({ method: "fs/write_text_file", path: params.path });
      const fs = await import("node:fs/promises");
      await fs.writeFile(params.path, params.content);
      return {};
    });
}

const clientCapabilities = { fs: { readTextFile: fsOn, writeTextFile: fsOn }, terminal: false };

async function phase(name, body) {
  current = { name, updates: [] };
  if (process.env.ACP_DEBUG) console.error("phase", name);
  const t0 = performance.now();
  try {
    current.result = await body();
  } catch (e) {
    current.error = { message: String(e?.message ?? e), code: e?.code, data: e?.data };
  }
  current.ms = performance.now() - t0;
  report.phases[name] = current;
  current = null;
}

const prompt = (agent, sessionId, text) =>
  agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

async function first() {
  const { child, stream } = start();
  let sessionId;
  await clientApp().connectWith(stream, async (agent) => {
    await phase("initialize", async () => {
      const r = await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
      report.initialize = r;
      return r;
    });
    await phase("new", async () => {
      const r = await agent.request("session/new", { cwd, mcpServers });
      sessionId = r.sessionId;
      report.newSession = r;
      // The commands update follows the answer; give it (and the session's MCP servers, which
      // start with it) a moment.
      await new Promise((res) => setTimeout(res, mcpServers.length ? 3000 : 300));
      return { sessionId: r.sessionId };
    });
    if (phases.includes("prompt")) {
      await phase("prompt", () => prompt(agent, sessionId, "run the commands and edit the file"));
    }
    if (phases.includes("reject")) {
      rejectNext = true;
      await phase("reject", () => prompt(agent, sessionId, "now run the other command"));
      rejectNext = false;
    }
    if (phases.includes("cancel")) {
      await phase("cancel", async () => {
        const cancelled = new Promise((res) => {
          onUpdate = (u) => {
            if (u.sessionUpdate === "agent_message_chunk") {
              onUpdate = null;
              agent.notify("session/cancel", { sessionId });
              res();
            }
          };
        });
        const p = prompt(agent, sessionId, "write a long answer");
        await cancelled;
        const t = performance.now();
        const r = await p;
        if (process.env.ACP_DEBUG) console.error("cancel: prompt resolved", JSON.stringify(r));
        report.cancelMs = performance.now() - t;
        return r;
      });
    }
  });
  if (process.env.ACP_DEBUG) console.error("first connection done");
  await stop(child);
  return sessionId;
}

async function second(sessionId) {
  const { child, stream } = start();
  await clientApp().connectWith(stream, async (agent) => {
    await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
    if (phases.includes("load")) {
      report.list = await agent.request("session/list", { cwd });
      await phase("load", () => agent.request("session/load", { sessionId, cwd, mcpServers: [] }));
    }
  });
  await stop(child);
}

// errors sends bad input below the SDK (it would refuse to): malformed JSON, an unknown
// method, params of the wrong shape, and checks the connection still answers after each.
async function errors() {
  const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ["pipe", "pipe", "inherit"] });
  const lines = [];
  let buf = "";
  const waiters = [];
  child.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) {
        lines.push(JSON.parse(line));
        waiters.splice(0).forEach((w) => w());
      }
    }
  });
  const next = async () => {
    while (lines.length === 0) await new Promise((res) => waiters.push(res));
    return lines.shift();
  };
  const send = (s) => child.stdin.write(s + "\n");
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities } }));
  report.errors.initialize = await next();
  send("{not json");
  report.errors.parse = await next();
  send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/frobnicate", params: {} }));
  report.errors.unknown = await next();
  send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: 42 } }));
  report.errors.badParams = await next();
  send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "initialize", params: { protocolVersion: 1, clientCapabilities } }));
  report.errors.stillUsable = await next();
  await stop(child);
}

// ACP_LOAD_ID: only load this saved session (one another agent wrote) in a fresh agent.
if (process.env.ACP_LOAD_ID) {
  await second(process.env.ACP_LOAD_ID);
} else {
  const sessionId = await first();
  if (phases.includes("load")) await second(sessionId);
}
if (phases.includes("errors")) await errors();
process.stdout.write(JSON.stringify(report) + "\n");
