/**
 * The host SDK (served at `/embed/sdk.js`, declarations at `/embed/sdk.d.ts`): what a page of one of
 * a widget's origins calls to embed it.
 *
 *   const widget = mountAgentWidget(element, { server, widget: "wgt_...", token });
 *   const observation = await widget.run(`export default 6 * 7`);
 *
 * It inserts the widget's iframe sized to `element`, hands it the visitor's token once the iframe says
 * it is ready (to that one window only, at the server's exact origin), with one end of a MessageChannel,
 * and then talks to it over that channel only (every message both ways is parsed:
 * shared/embed/protocol.ts, web/src/embed/peer.ts). `run` lets the host's own agent use the widget as its
 * executor: it never throws, and resolves with the observation (a failure is one, with its code). The
 * mode and approvals are not the host's: they are set and answered by the person inside the iframe.
 * With `ui`, the host serves the `ui` namespace for its own editor: the server authorises each call,
 * then the SDK applies it to `ui.getGraph()` with the same document operations the app's editor uses
 * and hands the next graph to `ui.apply`.
 */
import { FrameMessage, type HostMessage, type WidgetEvent as ProtocolEvent } from "../../../shared/embed/protocol.ts";
import { Graph } from "../../../shared/graph/document.ts";
import { applyOp, isDocumentOp } from "../../../shared/graph/ops.ts";
import type { FailurePayload } from "../../../shared/protocol/errors.ts";
import type { Observation } from "../../../shared/protocol/worker.ts";
import { listenToPeer, postTo } from "./peer.ts";
import type { MountAgentWidget, WidgetEvent, WidgetGraph, WidgetGraphInput, WidgetObservation } from "./sdk-api.ts";

export type * from "./sdk-api.ts";

/** `true` only when `A` and `B` are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** sdk-api.ts is the protocol written out for pages without our code: these fail to compile if it drifts. */
const sameTypes: [
  Same<WidgetEvent, ProtocolEvent>,
  Same<WidgetObservation, Observation>,
  Same<WidgetGraph, Graph>,
  Same<WidgetGraphInput, typeof Graph._zod.input>,
] = [true, true, true, true];
void sameTypes;

/** How long the widget page may take to say it loaded (it is refused framing, or unreachable, otherwise). */
const LOAD_MS = 20_000;
/** Default bound of one `run`: the action's deadline plus time for a person to answer its approvals. */
const RUN_MS = 6 * 60_000;

function failedObservation(code: FailurePayload["code"], message: string): WidgetObservation {
  return { ok: false, error: { code, message }, logs: [], calls: [], duration_ms: 0 };
}

export const mountAgentWidget: MountAgentWidget = (element, options) => {
  const origin = new URL(options.server).origin;
  const iframe = document.createElement("iframe");
  iframe.src = `${origin}/embed?w=${encodeURIComponent(options.widget)}`;
  iframe.title = options.title ?? "nodetool agent";
  // Copy under an answer writes the clipboard, which a frame of another origin may do only when allowed.
  iframe.allow = "cross-origin-isolated; clipboard-write";
  Object.assign(iframe.style, { width: "100%", height: "100%", border: "0", display: "block" });

  let tokenSent = false;
  let destroyed = false;
  /** Set once the widget could not open, or was closed for good: every later run fails at once with it. */
  let failure: FailurePayload | undefined;
  const runs = new Map<string, (observation: WidgetObservation) => void>();
  let settleReady: { resolve(): void; reject(error: Error): void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    settleReady = { resolve, reject };
  });
  // The host may never await `ready`; a refusal is still reported to whoever does.
  ready.catch(() => {});
  const loadTimer = setTimeout(
    () =>
      settleReady?.reject(
        new Error(
          `The widget did not load from ${origin}: is this page's origin (${location.origin}) among the widget's allowed origins?`,
        ),
      ),
    LOAD_MS,
  );

  /** Over the channel `connect` opened (before it, the host has nothing to say). */
  const send = (message: HostMessage) => {
    peer.post(message);
  };

  const serveUi = async (message: Extract<FrameMessage, { type: "ui_call" | "ui_graph" }>) => {
    const ui = options.ui;
    const fail = (code: FailurePayload["code"], text: string) =>
      send({ type: "ui_result", id: message.id, ok: false, error: { code, message: text } });
    if (!ui) return fail("capability_unavailable", "The host page does not serve the ui namespace.");
    try {
      const graph = Graph.safeParse(await ui.getGraph());
      if (!graph.success) return fail("capability_failed", "The host page's editor gave a graph that is not valid.");
      if (message.type === "ui_graph") return send({ type: "ui_result", id: message.id, ok: true, value: graph.data });
      if (!isDocumentOp(message.capability)) {
        return fail("capability_unavailable", `${message.capability} is not served by the host page's editor.`);
      }
      const result = applyOp(graph.data, message.capability, message.args);
      if (!result.ok) return fail("capability_failed", result.message);
      if (result.graph !== graph.data)
        await ui.apply(result.graph, { capability: message.capability, args: message.args });
      send({ type: "ui_result", id: message.id, ok: true, value: result.value });
    } catch (err) {
      fail("capability_failed", `The host page's editor failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const peer = listenToPeer({
    self: window,
    peer: () => iframe.contentWindow,
    allows: (from) => from === origin,
    schema: FrameMessage,
    onMessage(message) {
      switch (message.type) {
        case "ready":
          clearTimeout(loadTimer);
          if (tokenSent) return;
          tokenSent = true;
          if (iframe.contentWindow) {
            // The iframe's end of the channel travels with the token; everything after goes over it.
            const channel = new MessageChannel();
            peer.open(channel.port1, origin);
            const connect: HostMessage = { type: "connect", token: options.token, ui: options.ui !== undefined };
            postTo(iframe.contentWindow, origin, connect, [channel.port2]);
          }
          return;
        case "connected":
          settleReady?.resolve();
          return;
        case "failed":
          clearTimeout(loadTimer);
          failure = message.error;
          settleReady?.reject(
            Object.assign(new Error(`${message.error.code}: ${message.error.message}`), { code: message.error.code }),
          );
          for (const [id, settle] of runs) {
            runs.delete(id);
            settle(failedObservation(message.error.code, message.error.message));
          }
          return;
        case "run_result":
          runs.get(message.id)?.(message.observation);
          runs.delete(message.id);
          return;
        case "ui_call":
        case "ui_graph":
          void serveUi(message);
          return;
        case "event":
          options.onEvent?.(message.event);
          return;
        default: {
          const never: never = message;
          return never;
        }
      }
    },
  });
  element.append(iframe);

  let counter = 0;
  return {
    iframe,
    ready,
    async run(actionSource, runOptions = {}) {
      if (destroyed) return failedObservation("run_ended", "The widget was removed from the page.");
      if (failure) return failedObservation(failure.code, failure.message);
      try {
        await ready;
      } catch (err) {
        return failedObservation("run_ended", err instanceof Error ? err.message : String(err));
      }
      const id = `run-${++counter}-${Date.now().toString(36)}`;
      return new Promise<WidgetObservation>((resolve) => {
        const timer = setTimeout(() => {
          runs.delete(id);
          resolve(failedObservation("timeout", "The widget did not answer this run in time."));
        }, runOptions.timeoutMs ?? RUN_MS);
        runs.set(id, (observation) => {
          clearTimeout(timer);
          resolve(observation);
        });
        send({ type: "run", id, source: actionSource });
      });
    },
    stats: () => peer.stats(),
    destroy() {
      if (destroyed) return;
      destroyed = true;
      clearTimeout(loadTimer);
      peer.dispose();
      iframe.remove();
      settleReady?.reject(new Error("The widget was removed from the page."));
      for (const [id, settle] of runs) {
        runs.delete(id);
        settle(failedObservation("run_ended", "The widget was removed from the page."));
      }
    },
  };
};
