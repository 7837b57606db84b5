/**
 * The SSRF guard of `http_request`: every refused address class, a DNS name resolving to loopback, a
 * redirect from an allowed host to loopback, the operator's switch for private addresses, and the
 * connection pinned to the addresses the check passed.
 */
import { describe, expect, it } from "vitest";
import { fetchOutbound } from "../../server-bridge/web/outbound.ts";
import { STRICT_WEB_POLICY } from "../../server-bridge/web/vet.ts";
import { answerValue, errorOf, openRun } from "../engine/support.ts";
import { startTestServer } from "../support/server.ts";
import { echo, startLoopback, WEB } from "./support.ts";

describe("the SSRF guard", () => {
  it("refuses each private address class without connecting", async () => {
    await using loop = await echo();
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const cases: [string, string][] = [
      [`${loop.origin}/`, "loopback"],
      ["http://127.8.9.10/", "loopback"],
      ["http://10.1.2.3/", "private"],
      ["http://172.16.5.4/", "private"],
      ["http://172.31.0.1/", "private"],
      ["http://192.168.0.1/", "private"],
      ["http://169.254.10.10/", "link-local"],
      ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
      ["http://100.64.0.1/", "shared \\(carrier-grade NAT\\)"],
      ["http://0.0.0.0/", "unspecified"],
      [`http://[::1]:${loop.port}/`, "loopback"],
      ["http://[fc00::1]/", "unique-local"],
      ["http://[fd12:3456::1]/", "unique-local"],
      ["http://[fe80::1]/", "link-local"],
      [`http://[::ffff:127.0.0.1]:${loop.port}/`, "loopback"],
      ["http://[::ffff:169.254.169.254]/", "cloud metadata"],
    ];
    for (const [url, why] of cases) {
      const refused = errorOf(await call(WEB, "request", [url]));
      expect(refused.code, url).toBe("capability_failed");
      expect(refused.message, url).toMatch(new RegExp(`is a ${why} address`));
    }
    expect(errorOf(await call(WEB, "request", ["file:///etc/passwd"])).message).toMatch(/only http/);
    expect(loop.seen).toEqual([]);
  });

  it("refuses a DNS name that resolves to loopback", async () => {
    await using loop = await echo();
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const refused = errorOf(await call(WEB, "request", [`http://localhost:${loop.port}/`]));
    expect(refused.message).toMatch(/resolves to (127\.0\.0\.1|::1), which is a loopback address/);
    expect(loop.seen).toEqual([]);
  });

  it("vets every redirect: an allowed host cannot send the request on to loopback", async () => {
    await using inner = await echo();
    await using outer = await startLoopback((_req, res) => {
      res.writeHead(302, { location: `${inner.origin}/admin` });
      res.end();
    });
    // Only the outer server's exact host:port is allowed; the inner one is plain loopback.
    await using server = await startTestServer({ httpAllowHosts: [outer.hostPort] });
    const { call } = await openRun(server, "auto");
    const refused = errorOf(await call(WEB, "request", [`${outer.origin}/start`]));
    expect(refused.message).toContain(`refused the redirect to ${inner.origin}`);
    expect(refused.message).toMatch(/is a loopback address/);
    expect(outer.seen).toHaveLength(1);
    expect(inner.seen).toEqual([]);
  });

  it("lets the operator allow every private address", async () => {
    await using loop = await echo();
    await using server = await startTestServer({ httpAllowPrivate: true });
    const { call } = await openRun(server, "auto");
    expect(
      answerValue<{ status: number }>(await call(WEB, "request", [`http://localhost:${loop.port}/x`])).status,
    ).toBe(200);
  });

  it("connects to the address it vetted, not to a second DNS answer", async () => {
    await using loop = await echo();
    // `rebind.test` exists only in this resolver: the system resolver would fail on it, so an answer
    // proves the socket went to the vetted address through the pinned lookup.
    const resolve = async () => [{ address: "127.0.0.1", family: 4 as const }];
    const policy = { ...STRICT_WEB_POLICY, allowHosts: [`rebind.test:${loop.port}`] };
    const response = await fetchOutbound(
      {
        url: `http://rebind.test:${loop.port}/pinned`,
        method: "GET",
        headers: {},
        timeoutMs: 10_000,
        followRedirects: true,
        signal: new AbortController().signal,
      },
      policy,
      resolve,
    );
    expect(response.status).toBe(200);
    expect(loop.seen[0]?.headers.host).toBe(`rebind.test:${loop.port}`);

    // With several vetted answers the socket may try each: nothing listens on ::1, 127.0.0.1 answers.
    const both = async () => [
      { address: "::1", family: 6 as const },
      { address: "127.0.0.1", family: 4 as const },
    ];
    const request = {
      url: `http://rebind.test:${loop.port}/second`,
      method: "GET",
      headers: {},
      timeoutMs: 10_000,
      followRedirects: true,
      signal: new AbortController().signal,
    };
    expect((await fetchOutbound(request, policy, both)).status).toBe(200);
  });
});
