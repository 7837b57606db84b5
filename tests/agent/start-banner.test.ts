/**
 * `npm start` says where the agent's model comes from: the providers from the configuration at once
 * (never a key), then whether they answer: the default model, or that a provider lists none (not
 * running, a wrong URL) or not the AGENT_MODEL asked for, on stderr. With none configured, which
 * variables to set.
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startCli } from "../support/cli.ts";
import { dropDatabaseFor, storeEnv } from "../support/database.ts";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { tempDir } from "../support/server.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) {
    await dropDatabaseFor(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});
/** A fresh store, and no provider but the ones a test names (whatever the shell running the suite has). */
const fresh = async () => {
  const dir = tempDir();
  dirs.push(dir);
  return { ...(await storeEnv(dir)), OPENAI_BASE_URL: "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", AGENT_MODEL: "" };
};

describe("the start banner's agent line", () => {
  it("names the provider, then its default model once it answers; never the key", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    const key = "sk-banner-secret-7c1e";
    await using server = await startCli({
      ...(await fresh()),
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: key,
    });
    const host = new URL(fake.url).host;
    expect(server.banner).toContain(`  agent: openai at ${host}\n`);
    await expect
      .poll(() => server.output().stdout)
      .toContain("  agent: default model openai:gpt-fake-1; models listed: openai 2\n");
    expect(`${server.output().stdout}${server.output().stderr}`).not.toContain(key);
  });

  it("says on stderr when the provider lists no models or not AGENT_MODEL, and what to set when none is configured", async () => {
    // A port nothing listens on: the provider cannot answer.
    const closed = await startFakeOpenAI({ script: [] });
    const url = closed.url;
    await closed.close();
    const env = await fresh();
    {
      await using server = await startCli({ ...env, OPENAI_BASE_URL: url });
      await expect
        .poll(() => server.output().stderr)
        .toContain(`  agent: openai at ${new URL(url).host} lists no models: is it running, and is its URL right?`);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    }
    // A default model the provider does not list (a typo, a model not pulled yet): said so.
    await using fake = await startFakeOpenAI({ script: [] });
    {
      await using server = await startCli({ ...env, OPENAI_BASE_URL: fake.url, AGENT_MODEL: "gpt-fake-typo" });
      expect(server.banner).toContain(`  agent: openai at ${new URL(fake.url).host}, AGENT_MODEL gpt-fake-typo\n`);
      await expect
        .poll(() => server.output().stderr)
        .toContain("  agent: AGENT_MODEL gpt-fake-typo is not among the models the providers list");
    }
    await using bare = await startCli(env);
    expect(bare.banner).toContain("  agent: none (set OPENAI_BASE_URL, e.g. a local Ollama, or ANTHROPIC_API_KEY");
  });
});
