/**
 * `GET /assets/<id>`: raster images inline, everything else (SVG and HTML included) an attachment that
 * cannot run script in the app's origin; only the owner gets an asset, and others cannot tell an id
 * that exists from one that does not; the owner is told when the row exists but its file is not here.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { answerValue, openRun } from "../engine/support.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { ASSETS, b64, png } from "./support.ts";

const CSP = "sandbox; default-src 'none'";

async function save(server: TestServer, args: Record<string, unknown>): Promise<string> {
  const { call } = await openRun(server, "auto");
  return answerValue<{ id: string }>(await call(ASSETS, "save", [args])).id;
}

const get = (server: TestServer, id: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${server.url}/assets/${id}`, { method, headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("serving assets", () => {
  it("serves a re-encoded PNG inline with its type, to a bearer token and to the login cookie", async () => {
    await using server = await startTestServer();
    const id = await save(server, { name: "chart.png", content: { $bytes: b64(await png(12, 7)) } });
    const res = await get(server, id, bearer(server.token));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="chart.png"; filename*=UTF-8''chart.png`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe(CSP);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 12, 7]);

    const viaCookie = await get(server, id, { cookie: await server.login() });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.headers.get("content-type")).toBe("image/png");

    // Revalidation by ETag, and HEAD without a body.
    const etag = res.headers.get("etag") ?? "";
    expect((await get(server, id, { ...bearer(server.token), "if-none-match": etag })).status).toBe(304);
    const head = await get(server, id, bearer(server.token), "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(res.headers.get("content-length"));
  });

  it.each([
    ["an SVG", "logo.svg", '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', "image/svg+xml"],
    ["an HTML page", "page.html", "<html><script>fetch('/trpc')</script></html>", "text/html"],
  ])("serves %s as a sandboxed, unsniffable attachment", async (_what, name, content, type) => {
    await using server = await startTestServer();
    const id = await save(server, { name, content, content_type: type });
    const res = await get(server, id, bearer(server.token));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(`${type}; charset=utf-8`);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${name}"; filename*=UTF-8''${name}`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe(CSP);
    expect(await res.text()).toBe(content);
  });

  it("keeps a non-ASCII name exact in filename* and harmless in filename", async () => {
    await using server = await startTestServer();
    const id = await save(server, { name: 'rapport "été".txt', content: "x" });
    const res = await get(server, id, bearer(server.token));
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="rapport __t__.txt"; filename*=UTF-8''rapport%20%22%C3%A9t%C3%A9%22.txt`,
    );
  });

  it("answers 404 alike for another user's asset and a missing one, and 401 without credentials", async () => {
    await using server = await startTestServer();
    const id = await save(server, { name: "secret.png", content: { $bytes: b64(await png(2, 2)) } });
    const other = await server.app.credentials.addUser("other");

    const foreign = await get(server, id, bearer(other.token));
    const missing = await get(server, `ast_${"0".repeat(32)}`, bearer(other.token));
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await foreign.text()).toBe(await missing.text());

    expect((await get(server, id)).status).toBe(401);
    expect((await get(server, id, bearer("not-a-token"))).status).toBe(401);
    // The MCP token opens /mcp and nothing else.
    expect((await get(server, id, bearer(server.app.credentials.mcpToken))).status).toBe(401);
    expect((await get(server, id, bearer(server.token))).status).toBe(200);
  });

  it("says the file is not in this server's DATA_DIR when the row exists but its file does not", async () => {
    await using server = await startTestServer();
    const id = await save(server, { name: "gone.txt", content: "bytes on another disk" });
    rmSync(join(server.dataDir, "assets"), { recursive: true, force: true });
    const res = await get(server, id, bearer(server.token));
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("capability_failed");
    expect(error.message).toContain(`Asset ${id} exists, but its file is not in this server's data directory`);
    expect(error.message).toContain("must share DATA_DIR");

    // A truly unknown id, and the same asset asked for by another user, still say only that there is none.
    const unknown = await get(server, `ast_${"0".repeat(32)}`, bearer(server.token));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(
      "There is no asset at this address.",
    );
    const other = await server.app.credentials.addUser("other");
    expect(await (await get(server, id, bearer(other.token))).text()).toContain("There is no asset at this address.");
  });

  it("leaves the page's own files under /assets/ to the page", async () => {
    await using server = await startTestServer();
    const res = await fetch(`${server.url}/assets/index-AbC123.js`);
    expect(res.headers.get("content-security-policy")).not.toBe(CSP);
  });
});
