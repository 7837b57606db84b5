/**
 * tRPC v11 set-up: the per-request context (who is calling and how), base procedures, and the error
 * shape. A CodedError thrown by a procedure becomes a tRPC error whose `data.error` carries our code.
 */
import { initTRPC, type ProcedureType, TRPCError } from "@trpc/server";
import { z } from "zod";
import {
  type ErrorCode,
  type FailurePayload,
  failure,
  isCodedError,
  issueLines,
  toFailure,
} from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import { type Caller, isPerson } from "../auth/caller.ts";
import { trpcCodeFor } from "../http/status.ts";
import { checkWidgetScope } from "./widget-rules.ts";

export interface RequestContext {
  app: AppServices;
  /** Who is calling, or undefined (then every procedure refuses). */
  caller: Caller | undefined;
  /** Only a cookie session on a same-origin request is "the person". */
  sameOrigin: boolean;
  /** The page's socket, when the request came over one (http/sockets.ts); absent over HTTP. */
  socket?: SocketState | undefined;
}

/** What a socket's procedures share: the calls it has in flight (bounded by the batch cap). */
export interface SocketState {
  inFlight: number;
}

/**
 * Codes for the refusals tRPC makes itself (input validation, unknown procedure, the auth middleware
 * below); anything else it reports is a bug, normalised by `toFailure`.
 */
const TRPC_REFUSALS: Partial<Record<TRPCError["code"], ErrorCode>> = {
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "unauthorized",
  TIMEOUT: "timeout",
  CLIENT_CLOSED_REQUEST: "cancelled",
};

/** How a procedure of this kind is called over HTTP, for the refusals of a call made the wrong way. */
function howToCall(type: ProcedureType | "unknown", path: string): string {
  if (type === "query") return `${path} is a query: call it with GET /trpc/${path}?input=<URL-encoded JSON>.`;
  if (type === "mutation") return `${path} is a mutation: call it with POST /trpc/${path}, its input as the JSON body.`;
  if (type === "subscription") return `${path} is a subscription: read it over the WebSocket, or as SSE with GET.`;
  return "";
}

interface Refused {
  error: TRPCError;
  message: string;
  path: string | undefined;
  type: ProcedureType | "unknown";
  input: unknown;
}

function failureOf({ error, message, path, type, input }: Refused): FailurePayload {
  const cause = error.cause;
  if (isCodedError(cause) || error.code === "INTERNAL_SERVER_ERROR") return toFailure(cause);
  const name = path ?? "this procedure";
  // The input schema's complaints, as lines a script's author can act on (tRPC's own message is the
  // issues serialised as pretty-printed JSON).
  if (cause instanceof z.ZodError) {
    const issues = issueLines(cause, "(input)");
    const hint = input === undefined ? ` ${howToCall(type, name)}` : "";
    return failure("invalid_call", `The input to ${name} does not fit: ${issues.join("; ")}.${hint}`, { issues });
  }
  if (cause instanceof SyntaxError) return failure("invalid_call", `The input is not JSON: ${cause.message}.`);
  if (error.code === "METHOD_NOT_SUPPORTED" && type !== "unknown")
    return failure("invalid_call", howToCall(type, name));
  if (error.code === "UNSUPPORTED_MEDIA_TYPE") {
    // tRPC's own text names its link ("use httpBatchStreamLink"), which a curl user has never heard of.
    return failure(
      "invalid_call",
      "This procedure streams its answers (run.invokeMany): call it with tRPC's httpBatchStreamLink, or send each call to run.invoke instead.",
    );
  }
  if (error.code === "NOT_FOUND") {
    return failure("invalid_call", `No procedure "${name}": the README's "The API for scripts" lists them.`);
  }
  return failure(TRPC_REFUSALS[error.code] ?? "invalid_call", message);
}

const t = initTRPC.context<RequestContext>().create({
  // Keep event streams alive through proxies, and let clients notice a dead one and reconnect.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 40_000 } },
  errorFormatter({ shape, error, type, input }) {
    // An unexpected throw's own text may name host paths or internals: the client gets a fixed one
    // (the router's onError logs the real error on the server).
    const payload = failureOf({ error, message: shape.message, path: shape.data.path, type, input });
    return { ...shape, message: payload.message, data: { ...shape.data, stack: undefined, error: payload } };
  },
});

export const router = t.router;

/** Converts CodedErrors into TRPCErrors with the HTTP status the code table gives them. */
const coded = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isCodedError(result.error.cause)) {
    const payload = result.error.cause.payload;
    throw new TRPCError({ code: trpcCodeFor(payload.code), message: payload.message, cause: result.error.cause });
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

/**
 * Any authenticated caller: a token, a cookie session or a widget's credential. `userId` is the
 * caller's user. A widget caller is held to its widget's scope before the procedure runs
 * (widget-rules.ts: the ids it names must be its widget's).
 */
export const authed = t.procedure
  .use(coded)
  .use(bounded)
  .use(async ({ ctx, next, getRawInput }) => {
    const { caller } = ctx;
    if (!caller)
      throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first: open the URL `npm start` printed." });
    if (caller.via === "widget") await checkWidgetScope({ ...ctx, caller }, await getRawInput().catch(() => undefined));
    return next({ ctx: { ...ctx, caller, userId: caller.user } });
  });

/** Whether this request is the person's own act: their cookie session (or widget iframe), from its own page. */
export function byPerson(ctx: { caller: Caller; sameOrigin: boolean }): boolean {
  return isPerson(ctx.caller) && ctx.sameOrigin;
}

/**
 * The person's acts (answer approvals, change mode, revoke): the cookie session or a widget's iframe,
 * from its own page (same origin) only. A host page embedding the widget can never do them.
 */
export const person = authed.use(({ ctx, next }) => {
  if (!byPerson(ctx)) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "Only the signed-in person can do this, from the app's own page (a token alone cannot).",
    });
  }
  return next();
});

/** The owner's acts (register and revoke widgets): the admin token, or the signed-in person's page. */
export const admin = authed.use(({ ctx, next }) => {
  if (ctx.caller.via !== "bearer" && !(ctx.caller.via === "cookie" && ctx.sameOrigin)) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "Only the owner can do this: with the admin token, or from the signed-in app's own page.",
    });
  }
  return next();
});
