// Measures, for an ACP agent, the time from spawning it and sending initialize to the first
// agent_message_chunk of a one-message turn (session/new, then a prompt), as an editor opening
// a chat and asking would see it. Environment: ACP_AGENT (argv as JSON), ACP_CWD, ACP_RUNS.
// Prints {"ms": [...]} (one figure a run).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const argv = JSON.parse(process.env.ACP_AGENT);
const cwd = process.env.ACP_CWD;
const runs = Number(process.env.ACP_RUNS || "10");
const out = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ["pipe", "pipe", "ignore"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  let first;
  const chunk = new Promise((res) => (first = res));
  await acp
    .client({ name: "gocodex-bench" })
    .onNotification("session/update", async ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk") first(performance.now());
    })
    .connectWith(stream, async (agent) => {
      await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await agent.request("session/new", { cwd, mcpServers: [] });
      const prompt = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      out.push((await chunk) - t0);
      await prompt;
    });
  const exited = new Promise((res) => child.on("exit", res));
  if (child.exitCode === null && child.signalCode === null) child.kill();
  await exited;
}
process.stdout.write(JSON.stringify({ ms: out }) + "\n");
