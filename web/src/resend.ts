/**
 * Re-sending a call whose socket dropped before its answer came (DESIGN.md section 8): only calls that
 * are idempotent on the server (a `callId` in their run, or ending a run) go through here.
 */
import { TRPCClientError } from "@trpc/client";

/** The close code `ws` uses for a message past the server's size cap. */
const CLOSED_FOR_SIZE = 1009;

/** Thrown by `resend` for a call whose message the server closed the socket for: never sent again. */
export class MessageTooLargeError extends Error {
  constructor() {
    super("The server closed the connection because a message was larger than it takes; it was not sent again.");
    this.name = "MessageTooLargeError";
  }
}

/**
 * Sends an idempotent call (one with a callId) and, when the socket dropped before its answer came,
 * sends it again with the same callId once the socket is back (the server joins the first attempt; it
 * never runs twice), while `isCurrent()` holds. Any other failure is thrown as it is.
 */
export async function resend<T>(send: () => Promise<T>, isCurrent: () => boolean): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (err) {
      const drop = socketDrop(err);
      if (!drop || !isCurrent()) throw err;
      if (drop.code === CLOSED_FOR_SIZE) throw new MessageTooLargeError();
    }
  }
}

/**
 * Whether a call failed only because its socket went away (and with which close code): tRPC's socket
 * client fails the calls in flight on a lost socket with the close (or error) event as the cause.
 */
function socketDrop(err: unknown): { code?: number } | undefined {
  if (!(err instanceof TRPCClientError)) return undefined;
  const cause: unknown = err.cause;
  if (cause instanceof Error) return cause.name === "TRPCWebSocketClosedError" ? {} : undefined;
  if (typeof cause !== "object" || cause === null) return undefined;
  const { type, code } = cause as { type?: unknown; code?: unknown };
  if (type !== "close" && type !== "error") return undefined;
  return typeof code === "number" ? { code } : {};
}
