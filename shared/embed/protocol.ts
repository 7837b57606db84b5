/**
 * The messages between a widget's iframe and the page that hosts it (DESIGN.md section 8), and nothing
 * else: zod schemas tagged by `type`, parsed by both sides before use (web/src/embed/peer.ts).
 *
 * What the host may say is deliberately small: the token to connect with, an action to run, and the
 * results of the `ui` calls it serves. No host message answers an approval, changes the mode or reads
 * the credential: there is no such message, so anything else the host posts fails to parse and is
 * ignored. What the host hears of approvals is that one is waiting (and how it was settled), never
 * its arguments: the person answers it inside the iframe.
 */
import { z } from "zod";
import { ApprovalRequest } from "../gate/approvals.ts";
import { FailurePayload } from "../protocol/errors.ts";
import { ApprovalSettledEvent, JobProgressEvent, RunEndedEvent } from "../protocol/server.ts";
import { Observation } from "../protocol/worker.ts";

/** A request id the asking side chose, echoed by the answer. */
const RequestId = z.string().min(1).max(100);

/** Largest action source a host may send to run (characters). */
export const MAX_ACTION_SOURCE = 256 * 1024;

/** What the host page hears happen in the widget (its `onEvent`). */
export const WidgetEvent = z.discriminatedUnion("type", [
  ApprovalRequest.pick({ approval_id: true, run_id: true, capability: true, category: true }).extend({
    type: z.literal("approval"),
    /** `pending` when it is asked; then how the person (or the clock) settled it. */
    status: z.union([z.literal("pending"), ApprovalSettledEvent.shape.status]),
  }),
  RunEndedEvent,
  JobProgressEvent,
]);
export type WidgetEvent = z.infer<typeof WidgetEvent>;

/** Iframe -> host. */
export const FrameMessage = z.discriminatedUnion("type", [
  /** The widget page has loaded and waits for its token (`connect`). */
  z.object({ type: z.literal("ready"), widget: z.string().max(100) }),
  /** The token was exchanged: the widget is signed in and its session open. */
  z.object({ type: z.literal("connected") }),
  /** The widget cannot work (the token was refused, the server unreachable): the same words it shows. */
  z.object({ type: z.literal("failed"), error: FailurePayload }),
  /** The observation of a host's `run`. */
  z.object({ type: z.literal("run_result"), id: RequestId, observation: Observation }),
  /** A `ui` document call the server authorised, for the host's own editor to apply. */
  z.object({
    type: z.literal("ui_call"),
    id: RequestId,
    capability: z.string().max(200),
    args: z.record(z.string(), z.unknown()),
  }),
  /** The host editor's graph, for `ui_run_workflow` (which runs what is on screen). */
  z.object({ type: z.literal("ui_graph"), id: RequestId }),
  z.object({ type: z.literal("event"), event: WidgetEvent }),
]);
export type FrameMessage = z.infer<typeof FrameMessage>;

/** Host -> iframe. */
export const HostMessage = z.discriminatedUnion("type", [
  /**
   * The visitor's widget token, minted by the host's server: exchanged once by the iframe. It carries
   * (transfers) one end of a MessageChannel: every message after it, both ways, goes over that channel.
   */
  z.object({
    type: z.literal("connect"),
    token: z.string().min(1).max(200),
    /** The host serves the `ui` namespace for its own editor (`ui_call`, `ui_graph`). */
    ui: z.boolean().default(false),
  }),
  /** Run an action in the widget's sandbox (the same gate, mode and approval dialog as the person's). */
  z.object({ type: z.literal("run"), id: RequestId, source: z.string().max(MAX_ACTION_SOURCE) }),
  /** The answer to a `ui_call` (its value) or a `ui_graph` (the graph). */
  z.discriminatedUnion("ok", [
    z.object({ type: z.literal("ui_result"), id: RequestId, ok: z.literal(true), value: z.unknown() }),
    z.object({ type: z.literal("ui_result"), id: RequestId, ok: z.literal(false), error: FailurePayload }),
  ]),
]);
export type HostMessage = z.infer<typeof HostMessage>;
