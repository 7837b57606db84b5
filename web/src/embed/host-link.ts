/**
 * The iframe's side of the channel to its host page (shared/embed/protocol.ts). It talks to one
 * window, its parent, and hears only messages from it, from one of the widget's origins; the first
 * valid message fixes which one (the host's), and from then on only that origin is heard. It says
 * `ready` once loaded (to the parent's exact origin when the browser tells it, else to each allowed
 * origin: only the one the parent shows receives it), takes the first `connect` token with the
 * channel's port it carries, and from then on carries runs, `ui` requests and events over that port
 * only (peer.ts). Every request it makes of the host has a deadline.
 */

import { type FrameMessage, HostMessage, type WidgetEvent } from "../../../shared/embed/protocol.ts";
import type { FailurePayload } from "../../../shared/protocol/errors.ts";
import type { WidgetConfig } from "./config.ts";
import { listenToPeer, type Peer, postTo } from "./peer.ts";

/** What a `connect` without the channel's port (from an SDK older than this page) is told. */
const OLD_SDK =
  "The host page's widget SDK is older than this server's: load mountAgentWidget from this server's /embed/sdk.js again.";

/** How long a `ui` request waits for the host before it fails. */
const HOST_ANSWER_MS = 20_000;

type Answer = { ok: true; value: unknown } | { ok: false; error: FailurePayload };

export interface HostLink {
  /** Resolves with the first token the host sends (and whether it serves `ui`). */
  readonly connect: Promise<{ token: string; ui: boolean }>;
  /** Runs the host asks for; the handler's observation goes back to it. */
  onRun(handler: (id: string, source: string) => void): void;
  send(message: FrameMessage): void;
  event(event: WidgetEvent): void;
  /** Asks the host (a `ui_call` or `ui_graph`) and waits for its `ui_result`. */
  ask(message: Extract<FrameMessage, { type: "ui_call" | "ui_graph" }>): Promise<Answer>;
  readonly peer: Peer;
}

export function linkToHost(config: WidgetConfig, self: Window = window): HostLink {
  const parent = self.parent;
  let hostOrigin: string | undefined;
  let connected = false;
  let runHandler: ((id: string, source: string) => void) | undefined;
  const waiting = new Map<string, (answer: Answer) => void>();
  let resolveConnect: (value: { token: string; ui: boolean }) => void = () => {};
  const connect = new Promise<{ token: string; ui: boolean }>((resolve) => {
    resolveConnect = resolve;
  });

  const peer = listenToPeer({
    self,
    peer: () => (parent === self ? undefined : parent),
    allows: (origin) => (hostOrigin === undefined ? config.origins.includes(origin) : origin === hostOrigin),
    schema: HostMessage,
    onMessage(message, origin, ports) {
      hostOrigin ??= origin;
      switch (message.type) {
        case "connect": {
          // One token per widget page: a second `connect` changes nothing.
          if (connected) return;
          const port = ports[0];
          if (!port) {
            send({ type: "failed", error: { code: "invalid_call", message: OLD_SDK } });
            return;
          }
          connected = true;
          peer.open(port, origin);
          resolveConnect({ token: message.token, ui: message.ui });
          return;
        }
        case "run":
          runHandler?.(message.id, message.source);
          return;
        case "ui_result": {
          const settle = waiting.get(message.id);
          waiting.delete(message.id);
          settle?.(message.ok ? { ok: true, value: message.value } : { ok: false, error: message.error });
          return;
        }
        default: {
          const never: never = message;
          return never;
        }
      }
    },
  });

  const send = (message: FrameMessage) => {
    if (parent === self || peer.post(message)) return;
    if (hostOrigin !== undefined) {
      postTo(parent, hostOrigin, message);
      return;
    }
    // Before the host has spoken: the parent's own origin when the browser says it, else each allowed
    // one (a message naming any other origin than the parent's is simply not delivered).
    const ancestor = self.location.ancestorOrigins?.[0];
    const targets = ancestor !== undefined && config.origins.includes(ancestor) ? [ancestor] : config.origins;
    for (const origin of targets) postTo(parent, origin, message);
  };

  let asked = 0;
  return {
    connect,
    onRun(handler) {
      runHandler = handler;
    },
    send,
    event: (event) => send({ type: "event", event }),
    ask(message) {
      const id = `${message.id}-${++asked}`;
      return new Promise<Answer>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve({
            ok: false,
            error: { code: "capability_failed", message: "The host page did not answer in time; nothing was changed." },
          });
        }, HOST_ANSWER_MS);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        send({ ...message, id });
      });
    },
    peer,
  };
}
