/**
 * The widget's token lifecycle on the real server and store: registered with the real CLI (and over
 * the API with the admin token), mint keys and tokens kept only as hashes, a token minted server to
 * server and exchanged once for a credential, an exchanged, expired or foreign token refused with a
 * message that says why, and revocation (CLI or API) ending every token, credential, socket and run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { ApiTokens } from "../../server-bridge/auth/api-tokens.ts";
import type { SqliteStore } from "../../server-bridge/store/sqlite.ts";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import { cliOn } from "../support/cli.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { closed, rawSocket, socketUrl } from "../support/sockets.ts";
import { addWidget, credentialFor, exchange, HOST_ORIGIN, mint, widgetHttp, widgetSocket } from "../support/widgets.ts";

const cli = (dataDir: string, ...args: string[]) => cliOn(dataDir, args);

/** Everything the store holds, as text (the SQLite file, or every widget row on Postgres). */
const storeText = async (server: TestServer) => {
  const { store } = server.app;
  if (store.dialect === "sqlite") {
    (store as SqliteStore).db.pragma("wal_checkpoint(TRUNCATE)");
    return readFileSync(join(server.dataDir, "nodetool.sqlite")).toString("latin1");
  }
  const tables = ["widgets", "widget_tokens", "widget_credentials", "api_tokens"];
  const rows = await Promise.all(tables.map((table) => store.sql(`SELECT * FROM ${table}`).all()));
  return JSON.stringify(rows);
};

describe("widget registration and tokens", () => {
  it("the CLI registers a widget (mint key shown once, stored hashed), lists it, and revokes it", async () => {
    await using server = await startTestServer();
    const added = await cli(
      server.dataDir,
      "widget",
      "add",
      "--origin",
      "https://app.example",
      "--origin",
      HOST_ORIGIN,
      "--modules",
      "workflows,shared",
      "--max-mode",
      "plan",
    );
    expect(added.status, added.stderr).toBe(0);
    const { widget_id: id, mint_key: mintKey, widget } = JSON.parse(added.stdout);
    expect(id).toMatch(/^wgt_/);
    expect(mintKey).toMatch(/^ntwm_/);
    expect(widget).toMatchObject({ origins: ["https://app.example", HOST_ORIGIN], modules: ["workflows", "shared"] });
    expect(widget.maxMode).toBe("plan");
    expect(added.stderr).toContain("Shown once");
    expect(await storeText(server)).not.toContain(mintKey);

    const listed = await cli(server.dataDir, "widget", "list");
    expect(JSON.parse(listed.stdout).widgets).toEqual([expect.objectContaining({ id, origins: widget.origins })]);

    const token = (await mint(server, mintKey)).body.token as string;
    expect(token).toMatch(/^ntwt_/);
    expect(await storeText(server)).not.toContain(token);

    const revoked = await cli(server.dataDir, "widget", "revoke", id);
    expect(revoked.status, revoked.stderr).toBe(0);
    // The mint key mints nothing now, and the token minted before is gone with it.
    const refused = await mint(server, mintKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.code).toBe("unauthorized");
    expect(refused.body.error?.message).toMatch(/revoked/);
    expect((await exchange(server, id, token)).body.error?.message).toMatch(/not valid/);
    expect(JSON.parse((await cli(server.dataDir, "widget", "list")).stdout).widgets[0].revokedAt).toBeDefined();
    expect((await cli(server.dataDir, "widget", "revoke", id)).status).toBe(1);

    expect((await cli(server.dataDir, "widget", "add", "--origin", "https://app.example/path")).stderr).toMatch(
      /not an exact origin/,
    );
    expect((await cli(server.dataDir, "widget", "add")).status).toBe(2);
  });

  it("a token is exchanged once; an exchanged, expired, foreign or unknown one is refused with the reason", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server);
    const other = await addWidget(server);
    const minted = await mint(server, widget.mintKey, { ttl_seconds: 120 });
    expect(minted.status).toBe(200);
    const token = minted.body.token as string;

    expect((await exchange(server, other.id, token)).body.error?.message).toMatch(/another widget/);
    const first = await exchange(server, widget.id, token);
    expect(first.status).toBe(200);
    expect(first.body.credential).toMatch(/^ntwc_/);
    expect(await storeText(server)).not.toContain(first.body.credential as string);

    const again = await exchange(server, widget.id, token);
    expect(again.status).toBe(403);
    expect(again.body.error).toMatchObject({ code: "unauthorized", message: expect.stringMatching(/already used/) });

    // Time passes: the token's expiry is moved into the past, as minutes going by would.
    const late = (await mint(server, widget.mintKey)).body.token as string;
    await server.app.store
      .sql("UPDATE widget_tokens SET expires_at = ? WHERE exchanged_at IS NULL")
      .run(Date.now() - 1);
    expect((await exchange(server, widget.id, late)).body.error?.message).toMatch(/expired at/);
    expect((await exchange(server, widget.id, "ntwt_nothing")).body.error?.message).toMatch(/not valid/);
  });

  it("minting is server to server with the mint key; exchanging is the widget page's own request", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server);
    const fromPage = await fetch(`${server.url}/embed/token`, {
      method: "POST",
      headers: { authorization: `Bearer ${widget.mintKey}`, origin: HOST_ORIGIN, "sec-fetch-site": "cross-site" },
    });
    expect(fromPage.status).toBe(403);
    expect(((await fromPage.json()) as { error: { message: string } }).error.message).toMatch(
      /never belongs in a web page/,
    );
    expect((await mint(server, "ntwm_wrong")).status).toBe(401);
    expect((await mint(server, server.token)).status).toBe(401);
    expect((await fetch(`${server.url}/embed/token`, { method: "POST" })).status).toBe(401);

    const token = (await mint(server, widget.mintKey)).body.token as string;
    const fromHost = await fetch(`${server.url}/embed/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: HOST_ORIGIN, "sec-fetch-site": "cross-site" },
      body: JSON.stringify({ widget: widget.id, token }),
    });
    expect(fromHost.status).toBe(403);
    // The refused attempt spent nothing: the widget's own page can still exchange it.
    expect((await exchange(server, widget.id, token)).status).toBe(200);
    // A token is not a credential: it opens no API.
    const asBearer = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(asBearer.status).toBe(401);
  });

  it("serves the widget page framed only by its origins, and refuses framing for an unknown widget", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server, { origins: [HOST_ORIGIN, "https://app.example"] });
    const page = await fetch(`${server.url}/embed?w=${widget.id}`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`frame-ancestors ${HOST_ORIGIN} https://app.example;`);
    expect(page.headers.get("set-cookie")).toBeNull();
    const html = await page.text();
    expect(html).toContain(`"id":"${widget.id}"`);
    expect(html).not.toContain(widget.mintKey);
    const unknown = await fetch(`${server.url}/embed?w=wgt_unknown`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("only the owner registers widgets: the admin token or the signed-in page, never an API token or a widget", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server);
    const browser = await server.browser();
    const viaPage = await browser.widgets.add.mutate({ origins: ["https://other.example"] });
    expect(viaPage.mintKey).toMatch(/^ntwm_/);
    expect((await server.script.widgets.list.query()).widgets.map((w) => w.id)).toEqual([widget.id, viaPage.widget.id]);

    const { token: apiToken } = await new ApiTokens(server.app.store).add("local", "ci");
    const api = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${apiToken}` } })],
    });
    await expect(api.widgets.add.mutate({ origins: [HOST_ORIGIN] })).rejects.toThrow(/Only the owner/);
    const credential = await credentialFor(server, widget);
    await expect(widgetHttp(server, credential).widgets.list.query()).rejects.toThrow(/Only the owner/);
  });

  it("revoking over the API closes the widget's sockets at once and ends its runs; the CLI's is noticed by the server", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server);
    const credential = await credentialFor(server, widget);
    await using socket = widgetSocket(server, credential);
    const { sessionId } = await socket.api.session.create.mutate({});
    const { runId } = await socket.api.run.start.mutate({ sessionId });
    const raw = await rawSocket(`${socketUrl(server)}?connectionParams=1`, { origin: server.url });
    if ("refused" in raw) throw new Error(`refused ${raw.refused}`);
    raw.send(JSON.stringify({ method: "connectionParams", data: { token: credential } }));
    raw.send(JSON.stringify({ id: 1, method: "query", params: { path: "config.get", input: undefined } }));
    await new Promise<void>((resolve) => raw.once("message", () => resolve()));

    const rawClosed = closed(raw);
    expect(await server.script.widgets.revoke.mutate({ widgetId: widget.id })).toEqual({ revoked: true });
    expect(await rawClosed).toBe(4403);
    const row = (await server.app.store.sql("SELECT status FROM runs WHERE id = ?").get(runId)) as { status: string };
    expect(row.status).toBe("cancelled");
    await expect(widgetHttp(server, credential).session.get.query({ sessionId })).rejects.toThrow();
    expect((await mint(server, widget.mintKey)).status).toBe(401);

    // Revoked by the CLI, another process: the server's sweep closes the socket within seconds.
    const second = await addWidget(server);
    const secondCredential = await credentialFor(server, second);
    const other = await rawSocket(`${socketUrl(server)}?connectionParams=1`, { origin: server.url });
    if ("refused" in other) throw new Error(`refused ${other.refused}`);
    other.send(JSON.stringify({ method: "connectionParams", data: { token: secondCredential } }));
    other.send(JSON.stringify({ id: 1, method: "query", params: { path: "config.get", input: undefined } }));
    await new Promise<void>((resolve) => other.once("message", () => resolve()));
    const otherClosed = closed(other);
    expect((await cli(server.dataDir, "widget", "revoke", second.id)).status).toBe(0);
    expect(await otherClosed).toBe(4403);
  });
});
