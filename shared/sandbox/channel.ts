/**
 * The one typed adapter over Comlink (DESIGN.md section 8). Comlink alone is untyped, lets a peer walk
 * any property path of the exposed object (get, set, construct), and leaves a call hanging forever when
 * the other side dies. Here:
 *
 * - `exposeAllowlisted` answers only `APPLY` of one allowlisted top-level function with plain (RAW)
 *   arguments; every other message is dropped before Comlink sees it;
 * - `connectRemote` bounds every wait and, on `close(reason)` (the worker was terminated), rejects every
 *   call still pending at once.
 *
 * Values from the other side are `unknown`: callers parse them with the zod schemas of
 * shared/protocol/worker.ts. Platform-neutral: Node's `worker_threads` ports are adapted by the caller.
 */
import { type Endpoint, expose, wrap } from "comlink";
import { CodedError, failure } from "../protocol/errors.ts";

type Listener = (event: MessageEvent) => void;
type ListenerArg = Parameters<Endpoint["addEventListener"]>[1];

/** True when `data` is an APPLY of exactly one allowlisted name with plain arguments. */
export function isAllowedCall(data: unknown, names: readonly string[]): boolean {
  if (data === null || typeof data !== "object") return false;
  const message = data as { type?: unknown; path?: unknown; argumentList?: unknown };
  if (message.type !== "APPLY") return false;
  const path = message.path;
  if (!Array.isArray(path) || path.length !== 1 || typeof path[0] !== "string" || !names.includes(path[0])) {
    return false;
  }
  const args = message.argumentList;
  return Array.isArray(args) && args.every((arg) => arg !== null && typeof arg === "object" && arg.type === "RAW");
}

/** Exposes `api` on `endpoint`, accepting only calls of `names`. Returns a function that stops listening. */
export function exposeAllowlisted(api: object, endpoint: Endpoint, names: readonly string[]): () => void {
  const wrapped = new Map<ListenerArg, Listener>();
  let closed = false;
  const filtered: Endpoint = {
    postMessage: (message, transfer) => {
      if (!closed) endpoint.postMessage(message, transfer);
    },
    addEventListener(type, listener) {
      const inner: Listener = (event) => {
        if (closed || !isAllowedCall(event.data, names)) return;
        if (typeof listener === "function") listener(event);
        else listener.handleEvent(event);
      };
      wrapped.set(listener, inner);
      endpoint.addEventListener(type, inner as ListenerArg);
    },
    removeEventListener(type, listener) {
      const inner = wrapped.get(listener);
      if (inner) endpoint.removeEventListener(type, inner as ListenerArg);
      wrapped.delete(listener);
    },
  };
  if (endpoint.start) filtered.start = () => endpoint.start?.();
  expose(api, filtered);
  return () => {
    closed = true;
    for (const inner of wrapped.values()) endpoint.removeEventListener("message", inner as ListenerArg);
    wrapped.clear();
  };
}

export interface RemoteChannel {
  /** Calls `name(arg)` on the peer. Rejects with a CodedError on timeout or when the channel closes. */
  call(name: string, arg: unknown, options?: { timeoutMs?: number }): Promise<unknown>;
  /** Rejects every pending call with `run_ended` and refuses new ones. Safe to call twice. */
  close(reason: string): void;
  readonly pendingCount: number;
  readonly closed: boolean;
}

interface Pending {
  reject(err: unknown): void;
}

export function connectRemote(endpoint: Endpoint, names: readonly string[], defaultTimeoutMs: number): RemoteChannel {
  // Comlink's proxy is typed as any-shaped; we reach it only through the allowlist below.
  const remote = wrap<Record<string, (arg: unknown) => Promise<unknown>>>(endpoint);
  const pending = new Set<Pending>();
  let closedReason: string | undefined;
  return {
    get pendingCount() {
      return pending.size;
    },
    get closed() {
      return closedReason !== undefined;
    },
    call(name, arg, options) {
      if (!names.includes(name)) return Promise.reject(new Error(`"${name}" is not an allowlisted call`));
      if (closedReason !== undefined) return Promise.reject(ended(closedReason));
      const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
      return new Promise<unknown>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const entry: Pending = {
          reject: (err) => {
            clearTimeout(timer);
            pending.delete(entry);
            reject(err);
          },
        };
        pending.add(entry);
        timer = setTimeout(() => {
          entry.reject(
            new CodedError(failure("timeout", `The sandbox did not answer "${name}" within ${timeoutMs} ms.`)),
          );
        }, timeoutMs);
        const fn = remote[name] as (arg: unknown) => Promise<unknown>;
        fn(arg).then(
          (value) => {
            if (!pending.has(entry)) return;
            clearTimeout(timer);
            pending.delete(entry);
            resolve(value);
          },
          (err: unknown) => {
            if (pending.has(entry)) entry.reject(err);
          },
        );
      });
    },
    close(reason) {
      if (closedReason !== undefined) return;
      closedReason = reason;
      for (const entry of [...pending]) entry.reject(ended(reason));
    },
  };
}

function ended(reason: string): CodedError {
  return new CodedError(failure("run_ended", `The sandbox worker stopped (${reason}); the call was not completed.`));
}

/** The subset of a Node `MessagePort` / `Worker` / `parentPort` an endpoint needs (structural: no Node import). */
export interface NodePortLike {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(type: "message", listener: (data: unknown) => void): unknown;
  off(type: "message", listener: (data: unknown) => void): unknown;
}

/** Adapts a Node port to Comlink's DOM-style endpoint (Node delivers `data`, not an event). */
export function nodeEndpoint(port: NodePortLike): Endpoint {
  const listeners = new Map<ListenerArg, (data: unknown) => void>();
  return {
    // An empty transfer list still takes the slow path of postMessage (several times the cost).
    postMessage: (message, transfer) =>
      transfer && transfer.length > 0
        ? port.postMessage(message, transfer as readonly unknown[])
        : port.postMessage(message),
    addEventListener(_type, listener) {
      const inner = (data: unknown) => {
        const event = { data } as MessageEvent;
        if (typeof listener === "function") listener(event);
        else listener.handleEvent(event);
      };
      listeners.set(listener, inner);
      port.on("message", inner);
    },
    removeEventListener(_type, listener) {
      const inner = listeners.get(listener);
      if (inner) port.off("message", inner);
      listeners.delete(listener);
    },
  };
}
