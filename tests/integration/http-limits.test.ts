/**
 * The HTTP layer under clients that misbehave: malformed addresses, slow or never-finished requests
 * without credentials, and many sockets from one address. Raw `net` sockets, so nothing in a client
 * library smooths the request over.
 */
import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.ts";

describe("HTTP limits", () => {
  it("answers 400 (invalid_call), not 500, to a malformed percent-escape in a page or asset path", async () => {
    await using server = await startTestServer();
    for (const path of ["/%zz", "/assets/%E0%A4%A", "/editor/%", "/%C0"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_call" } });
    }
    // A well-formed escape is still served (the page shell for an unknown path).
    expect((await fetch(`${server.url}/some%20page`)).status).toBe(200);
  });
});
