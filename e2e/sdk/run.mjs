// Drives gocodex through the official TypeScript SDK, the way an application would.
// Inputs come from the environment (set by e2e/sdk_test.go); the result is printed as JSON.
import { Codex } from "@openai/codex-sdk";

const codex = new Codex({
  codexPathOverride: process.env.GOCODEX_BINARY,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CODEX_HOME: process.env.CODEX_HOME,
    MOCK_API_KEY: process.env.MOCK_API_KEY,
  },
});
const thread = codex.startThread({
  workingDirectory: process.env.GOCODEX_WORKDIR,
  skipGitRepoCheck: true,
  sandboxMode: "danger-full-access",
  approvalPolicy: "never",
});
const turn = await thread.run("run a command, then answer");
console.log(JSON.stringify({
  threadId: thread.id,
  finalResponse: turn.finalResponse,
  usage: turn.usage,
  items: turn.items,
}));
