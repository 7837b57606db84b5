/**
 * Image nodes through the engine: a real PNG saved as an asset, resized by a workflow (image.resize
 * reads it with get_asset and saves the result with save_asset, both through the gate), then the other
 * operations through run_node, and the effects of a graph named in run_workflow's approval prompt.
 */

import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { imageWork } from "../../server-bridge/assets/image-work.ts";
import { resizedSize } from "../../server-bridge/assets/images.ts";
import { openLocalRun } from "../../server-bridge/runs/local.ts";
import { AssetRef } from "../../shared/protocol/values.ts";
import { answerValue, edge, errorOf, type JobResult, NODES, node, openRun } from "../engine/support.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { ASSETS, b64, png, unb64 } from "./support.ts";

interface Saved {
  id: string;
  asset: { $asset: string };
  width?: number;
  height?: number;
  content_type: string;
}

async function fetchImage(url: string, token: string, id: string) {
  const res = await fetch(`${url}/assets/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return sharp(Buffer.from(await res.arrayBuffer())).metadata();
}

describe("image nodes", () => {
  it("resizes a saved PNG with a workflow; the result is a new asset served as an image", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const source = answerValue<Saved>(
      await call(ASSETS, "save", [{ name: "photo.png", content: { $bytes: b64(await png(40, 30)) } }]),
    );
    const graph = {
      nodes: [
        node("pic", "workflow.input", { name: "picture" }),
        node("small", "image.resize", { width: 20 }),
        node("out", "workflow.output", { name: "thumb" }),
        node("meta", "image.metadata"),
        node("size", "workflow.output", { name: "size" }),
      ],
      edges: [edge("pic", "small", "image"), edge("small", "out", "value"), edge("small", "meta", "image")],
    };
    graph.edges.push(edge("meta", "size", "value"));
    const job = answerValue<JobResult>(
      await call(WORKFLOWS, "run", [{ graph, inputs: { picture: source.asset }, wait_ms: 50_000 }]),
    );
    expect(job.status).toBe("completed");
    const thumb = job.outputs?.thumb as { $asset: string };
    expect(thumb.$asset).toMatch(/^ast_/);
    expect(thumb.$asset).not.toBe(source.id);
    expect(job.outputs?.size).toMatchObject({ width: 20, height: 15, content_type: "image/png" });

    const got = answerValue<Saved & { name: string }>(await call(ASSETS, "get", [thumb]));
    expect(got).toMatchObject({ name: "photo-resized.png", content_type: "image/png", width: 20, height: 15 });
    const served = await fetchImage(server.url, server.token, thumb.$asset);
    expect([served.format, served.width, served.height]).toEqual(["png", 20, 15]);
  });

  it("crops, grays, converts and reads metadata through run_node, from an asset or from bytes", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const source = answerValue<Saved>(
      await call(ASSETS, "save", ["c.png", { $bytes: b64(await png(30, 20, "#ff0000")) }]),
    );
    const run = async (type: string, inputs: Record<string, unknown>) =>
      answerValue<{ outputs: Record<string, unknown> }>(await call(NODES, "run", [{ node_type: type, inputs }]))
        .outputs;

    const cropped = await run("image.crop", { image: source.asset, left: 5, top: 5, width: 10, height: 8 });
    expect(cropped.metadata).toMatchObject({ width: 10, height: 8, name: "c-cropped.png" });
    const gray = await run("image.grayscale", { image: cropped.output, name: "gray.png" });
    const grayBytes = answerValue<{ bytes: { $bytes: string } }>(
      await call(ASSETS, "get", [{ asset_id: gray.output, include_bytes: true }]),
    );
    const stats = await sharp(Buffer.from(unb64(grayBytes.bytes.$bytes))).stats();
    const [r, g, b] = stats.channels.map((c) => Math.round(c.mean));
    expect(r).toBe(g);
    expect(g).toBe(b);

    const webp = await run("image.convert", { image: gray.output, format: "webp", quality: 80 });
    expect(webp.metadata).toMatchObject({ content_type: "image/webp", name: "gray-converted.webp" });
    expect((await fetchImage(server.url, server.token, (webp.output as { $asset: string }).$asset)).format).toBe(
      "webp",
    );

    const fromBytes = await run("image.metadata", { image: { $bytes: b64(await png(3, 4)) } });
    expect(fromBytes.output).toMatchObject({ width: 3, height: 4, content_type: "image/png", has_alpha: false });

    const tooBig = errorOf(
      await call(NODES, "run", [{ node_type: "image.crop", inputs: { image: source.asset, width: 31, height: 1 } }]),
    );
    expect(tooBig.message).toMatch(/does not fit in the 30x20 image/);
    const text = answerValue<Saved>(await call(ASSETS, "save", ["t.txt", "not an image"]));
    const notImage = errorOf(
      await call(NODES, "run", [{ node_type: "image.grayscale", inputs: { image: text.asset } }]),
    );
    expect(notImage.message).toMatch(/is text\/plain; charset=utf-8, not an image/);
  });

  it("refuses a resize that would make more pixels than a decode may hold", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const source = answerValue<Saved>(await call(ASSETS, "save", ["s.png", { $bytes: b64(await png(40, 30)) }]));
    const resize = async (inputs: Record<string, unknown>) =>
      call(NODES, "run", [{ node_type: "image.resize", inputs: { image: source.asset, ...inputs } }]);
    const stretched = errorOf(await resize({ width: 10_000, height: 10_000, fit: "fill" }));
    expect(stretched.message).toMatch(/would be 10000x10000 \(100000000 pixels\); at most 40000000/);
    // A width alone keeps the aspect ratio: 40x30 -> 9000x6750 is 60 750 000 pixels.
    expect(errorOf(await resize({ width: 9_000 })).message).toMatch(/would be 9000x6750/);
    expect(answerValue<{ outputs: { metadata: Saved } }>(await resize({ width: 4000 })).outputs.metadata).toMatchObject(
      {
        width: 4000,
        height: 3000,
      },
    );
  });

  it("computes a resize's size exactly as sharp makes it, for every fit", async () => {
    const source = await png(40, 30);
    for (const fit of ["inside", "outside", "cover", "contain", "fill"] as const) {
      for (const box of [{ width: 25 }, { height: 7 }, { width: 25, height: 7 }, { width: 9, height: 50 }]) {
        const { info } = await sharp(source)
          .resize({ ...box, fit })
          .toBuffer({ resolveWithObject: true });
        expect(resizedSize({ width: 40, height: 30 }, { ...box, fit }), `${fit} ${JSON.stringify(box)}`).toEqual({
          width: info.width,
          height: info.height,
        });
      }
    }
  });

  it("runs eight image jobs a few at a time, and /health answers while they run", async () => {
    await using server = await startTestServer({ imageConcurrency: 2 });
    const { call } = await openRun(server, "auto");
    const source = answerValue<Saved>(
      await call(ASSETS, "save", ["big.png", { $bytes: b64(await png(1600, 1200, "#808080")) }]),
    );
    imageWork.peak.active = 0;
    imageWork.peak.waiting = 0;
    const graph = (n: number) => ({
      nodes: [node("r", "image.resize", { image: source.asset, width: 1500 - n, fit: "fill", height: 1100 })],
      edges: [],
    });
    const started = await Promise.all(
      Array.from({ length: 8 }, (_, n) => call(WORKFLOWS, "start", [{ graph: graph(n) }])),
    );
    const ids = started.map((answer) => answerValue<{ job_id: string }>(answer).job_id);
    let answered = 0;
    const finished = Promise.all(
      ids.map((id) => call("@nodetool-ai/sandbox-nodetool/jobs", "wait", [{ job_id: id, wait_ms: 50_000 }])),
    );
    let done = false;
    void finished.then(() => {
      done = true;
    });
    while (!done) {
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      answered++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const jobs = (await finished).map((answer) => answerValue<JobResult>(answer));
    expect(jobs.map((job) => job.status)).toEqual(Array(8).fill("completed"));
    expect(answered).toBeGreaterThan(0);
    // Never more than two at once, and the rest waited their turn.
    expect(imageWork.peak.active).toBe(2);
    expect(imageWork.peak.waiting).toBeGreaterThan(0);
  });

  it("asset.save and asset.load carry text through a workflow", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const graph = {
      nodes: [
        node("save", "asset.save", { name: "note.txt", content: "hello from a workflow" }),
        node("load", "asset.load"),
      ],
      edges: [edge("save", "load", "asset")],
    };
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph }]));
    expect(job.status).toBe("completed");
    expect(job.outputs?.load).toMatchObject({
      output: "hello from a workflow",
      metadata: { name: "note.txt", kind: "text" },
    });
  });

  it("names image effects in run_workflow's prompt, and each effect still asks on its own", async () => {
    await using server = await startTestServer();
    const seed = await openRun(server, "auto");
    const source = answerValue<Saved>(await seed.call(ASSETS, "save", ["s.png", { $bytes: b64(await png(4, 4)) }]));
    const approver = new ScriptedApprover((request) => (request.capability === "save_asset" ? "deny" : "allow"));
    const asked = approver.asked;
    const local = await openLocalRun(server.app, { mode: "default", approver });
    // A direct invoke passes host values: the reference is an AssetRef (as the wire form decodes to).
    const graph = { nodes: [node("g", "image.grayscale", { image: new AssetRef(source.id) })], edges: [] };
    const result = await local.live.run.invoke("run_workflow", { graph, wait_ms: 50_000 });
    expect(result).toMatchObject({ ok: true, value: { status: "failed", error: { code: "permission_denied" } } });
    expect(asked.map((r) => r.capability)).toEqual(["run_workflow", "save_asset"]);
    expect(asked[0]?.message).toContain("write (save_asset, from image.grayscale)");
    await local.end();
  });
});
