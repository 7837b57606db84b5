/**
 * The `assets` namespace on the real server and store: text, JSON and real PNG round trips, the
 * refusal of bytes that only claim to be an image, content addressing, per-user isolation and caps.
 */

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { openLocalRun } from "../../server-bridge/runs/local.ts";
import { answerValue, errorOf, openRun } from "../engine/support.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { startTestServer } from "../support/server.ts";
import { ASSETS, b64, png, unb64 } from "./support.ts";

interface AssetOut {
  id: string;
  asset: { $asset: string };
  name: string;
  content_type: string;
  kind: string;
  size: number;
  width?: number;
  height?: number;
  url: string;
  content?: string;
  bytes?: { $bytes: string };
}

const files = (dataDir: string) =>
  existsSync(join(dataDir, "assets"))
    ? readdirSync(join(dataDir, "assets"), { recursive: true, withFileTypes: true }).filter(
        (e) => e.isFile() && !e.parentPath.endsWith("tmp"),
      ).length
    : 0;

describe("assets: save, get, list, delete through capabilities", () => {
  it("round-trips text, JSON and a real PNG, re-encoded, with its size", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");

    const text = answerValue<AssetOut>(await call(ASSETS, "save", ["notes.txt", "hello, asset"]));
    expect(text).toMatchObject({ name: "notes.txt", content_type: "text/plain; charset=utf-8", kind: "text" });
    expect(text.asset).toEqual({ $asset: text.id });
    expect(text.url).toBe(`/assets/${text.id}`);
    expect(answerValue<AssetOut>(await call(ASSETS, "get", [text.id]))).toMatchObject({ content: "hello, asset" });

    const json = answerValue<AssetOut>(await call(ASSETS, "save", [{ name: "d.json", content: { a: [1, 2] } }]));
    expect(json.content_type).toBe("application/json");
    // A reference as the whole argument is one value, not named arguments.
    const gotJson = answerValue<AssetOut>(await call(ASSETS, "get", [json.asset]));
    expect(JSON.parse(gotJson.content ?? "")).toEqual({ a: [1, 2] });

    const source = await png(40, 30);
    const saved = answerValue<AssetOut>(
      await call(ASSETS, "save", [{ name: "pic.png", content: { $bytes: b64(source) } }]),
    );
    expect(saved).toMatchObject({ content_type: "image/png", kind: "image", width: 40, height: 30 });
    const got = answerValue<AssetOut>(await call(ASSETS, "get", [{ asset_id: saved.asset, include_bytes: true }]));
    expect(got.content).toBeUndefined();
    const bytes = unb64(got.bytes?.$bytes ?? "");
    expect(bytes.byteLength).toBe(saved.size);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 40, 30]);

    const listed = answerValue<{ assets: AssetOut[]; count: number }>(await call(ASSETS, "list", [{}]));
    expect(listed.count).toBe(3);
    expect(listed.assets.map((a) => a.name)).toEqual(["pic.png", "d.json", "notes.txt"]);
    const images = answerValue<{ count: number }>(await call(ASSETS, "list", [{ content_type: "image/" }]));
    expect(images.count).toBe(1);

    expect(await call(ASSETS, "delete", [text.id])).toMatchObject({ ok: true });
    expect(errorOf(await call(ASSETS, "get", [text.id]))).toMatchObject({ code: "capability_failed" });
    expect(errorOf(await call(ASSETS, "delete", [text.id])).message).toMatch(/No asset with id/);
  });

  it("re-encodes an image into the type it claims, and strips bytes appended after the image", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const payload = Buffer.concat([await png(8, 8), Buffer.from("<script>alert(1)</script>")]);
    const jpeg = answerValue<AssetOut>(
      await call(ASSETS, "save", [{ name: "x.jpg", content: { $bytes: b64(payload) }, content_type: "image/JPG" }]),
    );
    expect(jpeg).toMatchObject({ content_type: "image/jpeg", width: 8, height: 8 });
    const got = answerValue<AssetOut>(await call(ASSETS, "get", [{ asset_id: jpeg.id, include_bytes: true }]));
    const bytes = Buffer.from(unb64(got.bytes?.$bytes ?? ""));
    expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    expect(bytes.includes("<script>")).toBe(false);
  });

  it("refuses content that claims to be an image and is not, and unsupported image types", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const html = new TextEncoder().encode("<html><script>alert(1)</script></html>");
    const fake = errorOf(
      await call(ASSETS, "save", [{ name: "evil.png", content: { $bytes: b64(html) }, content_type: "image/png" }]),
    );
    expect(fake.code).toBe("capability_failed");
    expect(fake.message).toMatch(/is not a PNG, JPEG, WebP, GIF, AVIF or TIFF image/);

    // A real signature with garbage after it passes the sniff and fails the decoder.
    const truncated = (await png(16, 16)).subarray(0, 40);
    const broken = errorOf(
      await call(ASSETS, "save", [{ name: "b.png", content: { $bytes: b64(truncated) }, content_type: "image/png" }]),
    );
    expect(broken.message).toMatch(/could not be decoded as an image/);

    const asText = errorOf(await call(ASSETS, "save", [{ name: "t.png", content: "abc", content_type: "image/png" }]));
    expect(asText.message).toMatch(/pass the image as bytes/);
    const bmp = errorOf(
      await call(ASSETS, "save", [{ name: "a.bmp", content: { $bytes: b64(html) }, content_type: "image/bmp" }]),
    );
    expect(bmp.message).toMatch(/image\/bmp is not an image type this server stores/);
    const bad = errorOf(await call(ASSETS, "save", [{ name: "x", content: "a", content_type: "not a type" }]));
    expect(bad.code).toBe("invalid_tool_arguments");
    expect(answerValue<{ count: number }>(await call(ASSETS, "list", [])).count).toBe(0);
    expect(files(server.dataDir)).toBe(0);
  });

  it("stores SVG as text and bytes without a type as octet-stream, or as the image they hold", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const saved = answerValue<AssetOut>(await call(ASSETS, "save", ["a.svg", svg, "image/svg+xml"]));
    expect(saved).toMatchObject({ kind: "text", content_type: "image/svg+xml; charset=utf-8" });
    expect(saved.width).toBeUndefined();
    expect(answerValue<AssetOut>(await call(ASSETS, "get", [saved.id])).content).toBe(svg);

    const blob = answerValue<AssetOut>(await call(ASSETS, "save", ["b.bin", { $bytes: b64(Buffer.from([0, 1, 2])) }]));
    expect(blob).toMatchObject({ content_type: "application/octet-stream", kind: "binary", size: 3 });
    const sniffed = answerValue<AssetOut>(await call(ASSETS, "save", ["c", { $bytes: b64(await png(3, 2)) }]));
    expect(sniffed).toMatchObject({ content_type: "image/png", kind: "image", width: 3, height: 2 });
  });

  it("stores identical content once and removes the file with its last asset", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const a = answerValue<AssetOut>(await call(ASSETS, "save", ["a.txt", "same bytes"]));
    const b = answerValue<AssetOut>(await call(ASSETS, "save", ["b.txt", "same bytes"]));
    expect(a.id).not.toBe(b.id);
    expect(files(server.dataDir)).toBe(1);
    await call(ASSETS, "delete", [a.id]);
    expect(files(server.dataDir)).toBe(1);
    expect(answerValue<AssetOut>(await call(ASSETS, "get", [b.id])).content).toBe("same bytes");
    await call(ASSETS, "delete", [b.id]);
    expect(files(server.dataDir)).toBe(0);
  });

  it("keeps each user's assets to that user, and survives a restart", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const mine = answerValue<AssetOut>(await call(ASSETS, "save", ["mine.txt", "private"]));
    const other = await server.app.credentials.addUser("other");
    const live = await server.app.runs.start(
      other.userId,
      (await server.app.sessions.create(other.userId, { mode: "auto" })).sessionId,
    );
    const theirs = await live.run.invoke("get_asset", { asset_id: mine.id });
    expect(theirs).toMatchObject({ ok: false, error: { code: "capability_failed" } });
    expect(await live.run.invoke("list_assets", {})).toMatchObject({ ok: true, value: { count: 0 } });
    expect(await live.run.invoke("delete_asset", { asset_id: mine.id })).toMatchObject({ ok: false });

    const again = await server.restart();
    try {
      const next = await openRun(again, "auto");
      expect(answerValue<AssetOut>(await next.call(ASSETS, "get", [mine.id])).content).toBe("private");
    } finally {
      await again.close();
    }
  });

  it("types text saved without a type by its name's extension, when that is a text type", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const typeOf = async (name: string, content: string) =>
      answerValue<AssetOut>(await call(ASSETS, "save", [name, content])).content_type;
    expect(await typeOf("totals.csv", "a,b\n1,2")).toBe("text/csv; charset=utf-8");
    expect(await typeOf("README.MD", "# hi")).toBe("text/markdown; charset=utf-8");
    expect(await typeOf("dot.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>")).toBe("image/svg+xml; charset=utf-8");
    expect(await typeOf("notes", "plain")).toBe("text/plain; charset=utf-8");
    // An image's name on text is no reason to call the text an image.
    expect(await typeOf("fake.png", "not a picture")).toBe("text/plain; charset=utf-8");
  });

  it("enforces the per-asset cap and the per-user quota from configuration", async () => {
    await using server = await startTestServer({ assetMaxBytes: 1000, assetQuotaBytes: 1500 });
    const { call } = await openRun(server, "auto");
    const big = errorOf(await call(ASSETS, "save", ["big.txt", "x".repeat(1001)]));
    // Exact under a KiB (it said "1 KiB; one asset may be at most 1 KiB", which told nothing).
    expect(big.message).toMatch(/^The content is 1001 bytes; one asset may be at most 1000 bytes\./);
    expect(await call(ASSETS, "save", ["a.txt", "a".repeat(900)])).toMatchObject({ ok: true });
    const over = errorOf(await call(ASSETS, "save", ["b.txt", "b".repeat(900)]));
    expect(over.message).toMatch(/would pass the .* the user may keep/);
    expect(files(server.dataDir)).toBe(1);
  });

  it("asks before a write in default mode and blocks it in plan mode; reads always run", async () => {
    await using server = await startTestServer();
    const plan = await openRun(server, "plan");
    expect(errorOf(await plan.call(ASSETS, "save", ["a.txt", "x"])).code).toBe("blocked_in_plan_mode");
    expect(await plan.call(ASSETS, "list", [])).toMatchObject({ ok: true });

    const approver = new ScriptedApprover("deny");
    const asked = approver.asked;
    const local = await openLocalRun(server.app, { mode: "default", approver });
    const denied = await local.live.run.invoke("save_asset", { name: "a.txt", content: "x" });
    expect(denied).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(asked.map((r) => [r.capability, r.category, r.message])).toEqual([
      ["save_asset", "write", 'Save asset "a.txt"'],
    ]);
    expect(await local.live.run.invoke("list_assets", {})).toMatchObject({ ok: true, value: { count: 0 } });
    await local.end();
  });
});
