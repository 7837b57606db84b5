/**
 * The terminal agent's `--attach <file>`: each file is saved as the local user's asset and the request
 * names it by its asset id, as the panel's Attach does, so the model can look at an attached image; a
 * file that cannot be read or that the store refuses stops it before the model is called.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { agentCommand } from "../../server-bridge/cli/agent.ts";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { startTestServer, tempDir } from "../support/server.ts";
import { agentConfig, pipes } from "./terminal-kit.ts";

describe("the terminal agent's --attach", () => {
  it("saves each file as the local user's asset, names it in the request, and the model can view the image", async () => {
    const dir = tempDir();
    const png = join(dir, "dot.png");
    writeFileSync(
      png,
      await sharp({ create: { width: 6, height: 4, channels: 3, background: "#00f" } })
        .png()
        .toBuffer(),
    );
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "buy milk");
    await using fake = await startFakeOpenAI({ script: [{ text: "Noted." }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const { store } = server.app;
    const { io, stdout, stderr } = pipes();
    const run = agentCommand(["what is this?", "--attach", png, "--attach", notes], {
      app: server.app,
      sandbox: server.app.sandbox,
      ...io,
    });
    expect(await run).toBe(0);
    const assets = (await store.sql("SELECT id, name, user_id, content_type FROM assets ORDER BY name").all()) as {
      id: string;
      name: string;
      user_id: string;
      content_type: string;
    }[];
    expect(assets.map((a) => [a.name, a.user_id])).toEqual([
      ["dot.png", "local"],
      ["notes.txt", "local"],
    ]);
    const [dot, text] = assets;
    const asked = JSON.stringify(fake.requests[0]);
    expect(asked).toContain("what is this?");
    expect(asked).toContain(`- dot.png: asset ${dot?.id} (image/png, `);
    expect(text?.content_type).toBe("text/plain; charset=utf-8");
    expect(asked).toContain(`- notes.txt: asset ${text?.id} (text/plain; charset=utf-8, 8 B)`);
    expect(stderr()).toContain(`attached dot.png: asset ${dot?.id} (image/png, `);
    expect(stdout()).toBe("Noted.\n");

    // Going on in the same conversation, the model views the attached image by its id.
    const threadId = /--thread (\S+)/.exec(stderr())?.[1] ?? "";
    fake.script.push(
      { tool_calls: [{ name: "view_image", arguments: JSON.stringify({ image_id: dot?.id }) }] },
      { text: "A blue rectangle." },
    );
    const second = pipes();
    const argv = ["look at it", "--thread", threadId];
    expect(await agentCommand(argv, { app: server.app, sandbox: server.app.sandbox, ...second.io })).toBe(0);
    expect(second.stdout()).toBe("A blue rectangle.\n");
    expect(JSON.stringify(fake.requests[2])).toContain("data:image/png;base64,");
  });

  it("stops before calling the model on a file it cannot read or the store refuses, saying which and why", async () => {
    const dir = tempDir();
    const broken = join(dir, "broken.png");
    writeFileSync(broken, "not a picture");
    await using fake = await startFakeOpenAI({ script: [{ text: "never" }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const cases: [string, RegExp][] = [
      [join(dir, "missing.png"), /^--attach .*missing\.png: there is no such file\n$/],
      [dir, /: it is a folder\n$/],
      [broken, /^--attach .*broken\.png: The content of "broken\.png" .*is not a PNG/],
    ];
    for (const [path, message] of cases) {
      const { io, stderr } = pipes();
      const argv = ["describe it", "--attach", path];
      expect(await agentCommand(argv, { app: server.app, sandbox: server.app.sandbox, ...io })).toBe(2);
      expect(stderr()).toMatch(message);
    }
    const { io, stderr } = pipes();
    expect(await agentCommand(["x", "--attach"], { app: server.app, sandbox: server.app.sandbox, ...io })).toBe(2);
    expect(stderr()).toContain("--attach needs a file");
    expect(fake.requests).toHaveLength(0);
    expect(await server.app.agent.threads.list("local")).toEqual([]);
    expect(await server.app.store.sql("SELECT name FROM assets").all()).toEqual([]);
  });
});
