import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { describe, expect, it } from "vitest";
import type { AppServices } from "../../server-bridge/app-services.ts";
import { HTTP_STATUS, trpcCodeFor } from "../../server-bridge/http/status.ts";
import { appRouter } from "../../server-bridge/trpc/router.ts";
import { CodedError, ERROR_CODES, toFailure, UNEXPECTED_FAILURE } from "../../shared/protocol/errors.ts";

/** `session.get` against services whose session lookup fails with `err`. */
async function sessionGet(err: unknown) {
  const app = {
    sessions: {
      view: () => {
        throw err;
      },
    },
  } as unknown as AppServices;
  const response = await fetchRequestHandler({
    endpoint: "/trpc",
    router: appRouter,
    req: new Request(`http://127.0.0.1/trpc/session.get?input=${encodeURIComponent('{"sessionId":"ses_x"}')}`),
    createContext: () => ({ app, caller: { user: "user_x", via: "bearer" as const }, sameOrigin: false }),
  });
  const text = await response.text();
  const body = JSON.parse(text) as { error: { message: string; data: { error: { code: string; message: string } } } };
  return { status: response.status, text, body };
}

describe("error codes at the edges", () => {
  it("gives every code an HTTP status, carried by the tRPC code of that same status", () => {
    for (const code of ERROR_CODES) {
      expect(HTTP_STATUS[code], code).toBeGreaterThanOrEqual(400);
      expect(getHTTPStatusCodeFromError(new TRPCError({ code: trpcCodeFor(code) })), code).toBe(HTTP_STATUS[code]);
    }
  });

  it("normalises an unknown error to capability_failed with a fixed text, and keeps a coded one", () => {
    const coded = new CodedError({ code: "run_ended", message: "The run ended." });
    expect(toFailure(coded)).toEqual({ code: "run_ended", message: "The run ended." });
    expect(toFailure(new Error("EACCES: /home/me/.data/x"))).toEqual({
      code: "capability_failed",
      message: UNEXPECTED_FAILURE,
    });
    expect(toFailure("a string", "Said instead.")).toEqual({ code: "capability_failed", message: "Said instead." });
  });

  it("answers a coded failure from a procedure with the status its code has in the table", async () => {
    for (const code of ["run_ended", "unauthorized", "unknown_module", "capability_unavailable"] as const) {
      const { status, body } = await sessionGet(new CodedError({ code, message: `because ${code}` }));
      expect(status, code).toBe(HTTP_STATUS[code]);
      expect(body.error.data.error).toEqual({ code, message: `because ${code}` });
    }
  });

  it("never hands a client the text of an unexpected server error (it may name host paths)", async () => {
    const { status, text, body } = await sessionGet(
      new Error("ENOENT: /srv/nodetool/.data/secret.sqlite could not be opened"),
    );
    expect(status).toBe(500);
    expect(text).not.toContain("/srv/nodetool");
    expect(text).not.toContain("ENOENT");
    expect(body.error.data.error.code).toBe("capability_failed");
    expect(body.error.message).toBe(body.error.data.error.message);
    expect(body.error.message).toMatch(/failed on this request/);
  });
});
