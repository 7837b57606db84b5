import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { describe, expect, it } from "vitest";
import type { AppServices } from "../../server-bridge/app-services.ts";
import { appRouter } from "../../server-bridge/trpc/router.ts";

describe("tRPC error shape", () => {
  it("never hands a client the text of an unexpected server error (it may name host paths)", async () => {
    // A context whose services fail the way a bug would: with a host path in the message.
    const broken = new Proxy({} as AppServices, {
      get() {
        throw new Error("ENOENT: /srv/nodetool/.data/secret.sqlite could not be opened");
      },
    });
    const response = await fetchRequestHandler({
      endpoint: "/trpc",
      router: appRouter,
      req: new Request("http://127.0.0.1/trpc/session.create", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      }),
      createContext: () => ({ app: broken, userId: "user_x", via: "bearer" as const, sameOrigin: false }),
    });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(text).not.toContain("/srv/nodetool");
    expect(text).not.toContain("ENOENT");
    const body = JSON.parse(text) as { error: { message: string; data: { error: { code: string; message: string } } } };
    expect(body.error.data.error.code).toBe("capability_failed");
    expect(body.error.message).toBe(body.error.data.error.message);
    expect(body.error.message).toMatch(/failed on this request/);
  });
});
