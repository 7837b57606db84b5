/**
 * `view_image` over HTTP: a PNG saved as an asset by an action, shown whole and cropped, at low and high
 * detail; data: URIs within the cap; file:// and remote URLs refused; another user's asset invisible.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../server-bridge/auth/tokens.ts";
import { viewImage } from "../../server-bridge/mcp/view-image.ts";
import { DATA_URI_MAX_BYTES } from "../../shared/agent/tools.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { ASSETS, centreColour, httpClient, quadrantPng, type TestClient, TIMEOUT } from "./support.ts";

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const WHITE = [255, 255, 255];

describe("view_image", () => {
  let server: TestServer;
  let mcp: TestClient;
  let assetId: string;
  let png: Buffer;

  const view = async (args: Record<string, unknown>) =>
    (await mcp.client.callTool({ name: "view_image", arguments: args }, undefined, TIMEOUT)) as CallToolResult;
  const shown = async (result: CallToolResult) => {
    const image = result.content.find((c) => c.type === "image");
    const text = result.content.find((c) => c.type === "text");
    if (image?.type !== "image" || text?.type !== "text") throw new Error(`no image in ${JSON.stringify(result)}`);
    return { mimeType: image.mimeType, text: text.text, ...(await centreColour(image.data)) };
  };
  const errorText = (result: CallToolResult) => {
    expect(result.isError).toBe(true);
    const first = result.content[0];
    return first?.type === "text" ? first.text : "";
  };

  beforeAll(async () => {
    server = await startTestServer({ mcpMode: "auto" });
    mcp = await httpClient(server.url, server.app.credentials.mcpToken);
    png = await quadrantPng(1200, 800);
    const { observation } = await mcp.run(
      `import { assets } from "${ASSETS}";
       const bytes = new Uint8Array([${[...png].join(",")}]);
       const saved = await assets.save({ name: "quadrants.png", content: bytes, content_type: "image/png" });
       export default saved.asset;`,
    );
    expect(observation.ok).toBe(true);
    assetId = (observation.result as { $asset: string }).$asset;
    expect(assetId).toMatch(/^ast_/);
  });
  afterAll(async () => {
    await mcp?.[Symbol.asyncDispose]();
    await server?.[Symbol.asyncDispose]();
  });

  it("shows an asset whole: high detail keeps 1200x800, low caps the longest side at 768", async () => {
    const high = await shown(await view({ image_id: assetId }));
    expect(high).toMatchObject({ mimeType: "image/png", width: 1200, height: 800 });
    expect(high.text).toContain(`${assetId} "quadrants.png": 1200x800 image/png`);
    const low = await shown(await view({ image_id: `asset://${assetId}`, detail: "low", question: "Which colours?" }));
    expect(low).toMatchObject({ width: 768, height: 512 });
    expect(low.text).toContain("shown 768x512 image/png (detail low)");
    expect(low.text).toContain("Question: Which colours?");
  });

  it("crops a region in source pixels before scaling", async () => {
    const topRight = await shown(await view({ image_id: assetId, region: { x: 600, y: 0, width: 600, height: 400 } }));
    expect(topRight).toMatchObject({ width: 600, height: 400, rgb: GREEN });
    const wide = await shown(
      await view({ image_id: assetId, detail: "low", region: { x: 0, y: 0, width: 1200, height: 400 } }),
    );
    expect(wide).toMatchObject({ width: 768, height: 256 });
    const corner = await shown(await view({ image_id: assetId, region: { x: 700, y: 500, width: 100, height: 100 } }));
    expect(corner).toMatchObject({ width: 100, height: 100, rgb: WHITE });
    expect(errorText(await view({ image_id: assetId, region: { x: 1100, y: 0, width: 200, height: 10 } }))).toMatch(
      /does not fit in the 1200x800 image/,
    );
  });

  it("accepts a data: URI within the cap", async () => {
    const small = await quadrantPng(40, 20);
    const result = await shown(
      await view({
        image_id: `data:image/png;base64,${small.toString("base64")}`,
        region: { x: 0, y: 0, width: 20, height: 10 },
      }),
    );
    expect(result).toMatchObject({ width: 20, height: 10, rgb: RED });
    expect(errorText(await view({ image_id: "data:image/png;base64,aGVsbG8=" }))).toMatch(/not a PNG, JPEG/);
    expect(errorText(await view({ image_id: "data:text/plain;base64,aGVsbG8=" }))).toMatch(
      /Only base64 data: URIs of images/,
    );
    // Past the cap (checked before decoding; called directly, as HTTP's own body cap is lower still).
    const huge = `data:image/png;base64,${"A".repeat(Math.ceil((DATA_URI_MAX_BYTES * 4) / 3) + 8)}`;
    expect(errorText(await viewImage(server.app, "local", { image_id: huge }))).toMatch(/more than 8 MiB/);
  });

  it("refuses file:// paths, remote URLs, unknown ids and another user's asset, leaking nothing", async () => {
    const file = errorText(await view({ image_id: "file:///etc/passwd" }));
    expect(file).toMatch(/^invalid_call: file:\/\/ paths are not read/);
    expect(file).not.toContain("root:");
    expect(errorText(await view({ image_id: "https://example.com/cat.png" }))).toMatch(/Remote URLs are not fetched/);
    expect(errorText(await view({ image_id: "ast_nope" }))).toMatch(/No image asset "ast_nope"/);
    // Another user's token cannot see this user's asset.
    await server.app.store.sql("INSERT INTO users (id, name, created_at) VALUES ('user_c', 'c', 0)").run();
    await server.app.store
      .sql("INSERT INTO api_tokens (token_hash, user_id, scope, created_at) VALUES (?, 'user_c', 'mcp', 0)")
      .run(hashToken("token-of-user-c-0123456789"));
    await using other = await httpClient(server.url, "token-of-user-c-0123456789");
    const result = (await other.client.callTool(
      { name: "view_image", arguments: { image_id: assetId } },
      undefined,
      TIMEOUT,
    )) as CallToolResult;
    expect(errorText(result)).toMatch(/No image asset/);
  });

  it("keeps image bytes out of an observation, pointing to view_image", async () => {
    const { observation } = await mcp.run(
      `import { assets } from "${ASSETS}";
       const got = await assets.get({ asset_id: "${assetId}", include_bytes: true });
       export default { bytes: got.bytes, name: got.name };`,
    );
    expect(observation.ok).toBe(true);
    const result = observation.result as {
      bytes: { image_omitted: { content_type: string }; hint: string };
      name: string;
    };
    expect(result.bytes.image_omitted.content_type).toBe("image/png");
    expect(result.bytes.hint).toContain("view_image");
    expect(JSON.stringify(observation).length).toBeLessThan(png.length);
  });
});
