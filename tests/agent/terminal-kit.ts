/** What the terminal agent's tests share: a provider config pointing at a scripted server, and stdout/stderr as pipes. */
import type { AgentConfig } from "../../server-bridge/config.ts";
import type { FakeModelServer } from "../support/fake-models.ts";

/** The provider key tests give the server (they check it never leaks). */
export const KEY = "sk-test-0123456789abcdefSECRET";

export function agentConfig(fake: FakeModelServer | undefined, extra: Partial<AgentConfig> = {}): AgentConfig {
  return {
    ...(fake ? { openaiBaseUrl: fake.url, openaiApiKey: KEY } : {}),
    stepTokens: 1000,
    threadTokens: 1_000_000,
    dailyTokens: 1_000_000,
    stepCap: 20,
    ...extra,
  };
}

/** stdout and stderr as pipes (not a terminal), each collected. */
export function pipes() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}
