/**
 * tRPC v11 set-up: the per-request context (who is calling and how), base procedures, and the error
 * shape. A CodedError thrown by a procedure becomes a tRPC error whose `data.error` carries our code.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { ErrorCode } from "../../shared/protocol/errors.ts";
import { isCodedError } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";

export interface RequestContext {
  app: AppServices;
  /** The authenticated user, or undefined (then every procedure refuses). */
  userId: string | undefined;
  /** How the caller authenticated. Only a cookie session on a same-origin request is "the person". */
  via: "cookie" | "bearer" | "none";
  sameOrigin: boolean;
  /** The browser login behind a cookie request (what signing out ends). */
  loginId?: string | undefined;
  /** The page's socket, when the request came over one (http/sockets.ts); absent over HTTP. */
  socket?: SocketState | undefined;
}

/** What a socket's procedures share: the calls it has in flight (bounded by the batch cap). */
export interface SocketState {
  inFlight: number;
}

const INTERNAL = "The server failed on this request; nothing more is known. Retry once, then try another way.";

const t = initTRPC.context<RequestContext>().create({
  // Keep event streams alive through proxies, and let clients notice a dead one and reconnect.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 40_000 } },
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const coded = isCodedError(cause) ? cause.payload : undefined;
    // An unexpected throw's own text may name host paths or internals: the client gets a fixed one
    // (the router's onError logs the real error on the server).
    const message = coded?.message ?? (error.code === "INTERNAL_SERVER_ERROR" ? INTERNAL : shape.message);
    return {
      ...shape,
      message,
      data: { ...shape.data, stack: undefined, error: coded ?? { code: codeFor(error.code), message } },
    };
  },
});

function codeFor(code: TRPCError["code"]): ErrorCode {
  switch (code) {
    case "UNAUTHORIZED":
    case "FORBIDDEN":
      return "unauthorized";
    case "BAD_REQUEST":
    case "PARSE_ERROR":
    case "PAYLOAD_TOO_LARGE":
    case "UNSUPPORTED_MEDIA_TYPE":
    case "TOO_MANY_REQUESTS":
      return "invalid_call";
    default:
      return "capability_failed";
  }
}

export const router = t.router;

/** Converts CodedErrors into TRPCErrors with a fitting HTTP status. */
const coded = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isCodedError(result.error.cause)) {
    const payload = result.error.cause.payload;
    const status = payload.code === "unauthorized" ? "FORBIDDEN" : "BAD_REQUEST";
    throw new TRPCError({ code: status, message: payload.message, cause: result.error.cause });
  }
  return result;
});

/**
 * Over a socket, a connection holds at most the batch cap of calls in flight: one more is refused with
 * a coded error, and the connection stays usable. Subscriptions are not calls.
 */
const bounded = t.middleware(async ({ ctx, type, next }) => {
  const socket = ctx.socket;
  if (!socket || type === "subscription") return next();
  if (socket.inFlight >= ctx.app.config.maxBatchSize) {
    throw new TRPCError({
      code: "TOO_MANY_REQUESTS",
      message: `This connection already has ${ctx.app.config.maxBatchSize} calls in flight; wait for some to answer.`,
    });
  }
  socket.inFlight++;
  try {
    return await next();
  } finally {
    socket.inFlight--;
  }
});

/** Any authenticated caller: a bearer token or a cookie session. */
export const authed = t.procedure
  .use(coded)
  .use(bounded)
  .use(({ ctx, next }) => {
    if (!ctx.userId)
      throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first: open the URL `npm start` printed." });
    return next({ ctx: { ...ctx, userId: ctx.userId } });
  });

/** The person's acts (answer approvals, change mode, revoke): cookie session and same origin only. */
export const person = authed.use(({ ctx, next }) => {
  if (ctx.via !== "cookie" || !ctx.sameOrigin) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "Only the signed-in person can do this, from the app's own page (a token alone cannot).",
    });
  }
  return next();
});
