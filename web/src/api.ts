/**
 * The page's tRPC client, typed from the server's router (type import only). Three links: the event
 * stream over SSE (cookie-authenticated; EventSource cannot send headers), control calls and single
 * capability calls (`run.invoke`: a lone guest call, alone in its request, answered as plain JSON without
 * the stream's framing) on their own unbatched link, and everything else batched and streamed so one slow
 * call holds back no other (a worker batch of several calls is one streamed `run.invokeMany`).
 */
import {
  createTRPCClient,
  httpBatchStreamLink,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
} from "@trpc/client";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";

const UNBATCHED = new Set(["approvals.respond", "session.setMode", "session.revoke", "run.invoke"]);

export const api = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === "subscription",
      true: httpSubscriptionLink({ url: "/trpc" }),
      false: splitLink({
        condition: (op) => UNBATCHED.has(op.path),
        true: httpLink({ url: "/trpc" }),
        false: httpBatchStreamLink({ url: "/trpc", maxItems: 1000 }),
      }),
    }),
  ],
});

export type Api = typeof api;

/** The HTTP status of a tRPC failure, when the server sent one. */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof TRPCClientError) {
    const data = err.data as { httpStatus?: number } | undefined;
    if (data?.httpStatus) return data.httpStatus;
    const meta = err.meta as { response?: { status?: number } } | undefined;
    return meta?.response?.status;
  }
  return undefined;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
