/**
 * Web Worker entry (the browser). The page posts one `init` message first: the port it serves `calls`
 * on, and preferably the wasm already compiled (the worker is served with a CSP that forbids network
 * access; the `?url` import is the fallback for pages that allow fetching it). Optional shared memory
 * (or, without it, a port) lets the page's watchdog time VM slices. After init, the worker speaks only the allowlisted API.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import wasmUrl from "@jitl/quickjs-wasmfile-release-sync/wasm?url";
import type { Endpoint } from "comlink";
import { portSliceWatch, sharedSliceWatch } from "./host/clock.ts";
import type { Limits } from "./host/limits.ts";
import { serveSandbox } from "./host/serve.ts";

interface InitMessage {
  type: "init";
  hostPort: MessagePort;
  wasmModule?: WebAssembly.Module;
  sliceBuffer?: SharedArrayBuffer;
  /** Where the page has no SharedArrayBuffer (a widget in a page that is not isolated): a port instead. */
  slicePort?: MessagePort;
  limits?: Partial<Limits>;
}

function isInit(data: unknown): data is InitMessage {
  const d = data as Partial<InitMessage> | null;
  return typeof d === "object" && d !== null && d.type === "init" && d.hostPort instanceof MessagePort;
}

// The browser's native stack is smaller than a Node worker's: keep QuickJS's own limit well under it.
const BROWSER_STACK_BYTES = 256 * 1024;

const scope = globalThis as unknown as Endpoint & { postMessage(message: unknown): void };

function onInit(event: MessageEvent): void {
  if (!isInit(event.data)) return;
  scope.removeEventListener("message", onInit as EventListener);
  const init = event.data;
  init.hostPort.start();
  const compiled = init.wasmModule;
  const host = serveSandbox({
    variant,
    wasm: () => (compiled ? Promise.resolve(compiled) : WebAssembly.compileStreaming(fetch(wasmUrl))),
    workerEndpoint: scope,
    hostEndpoint: init.hostPort as unknown as Endpoint,
    limits: { stackBytes: BROWSER_STACK_BYTES, ...init.limits },
    ...(init.sliceBuffer
      ? { sliceWatch: sharedSliceWatch(init.sliceBuffer) }
      : init.slicePort instanceof MessagePort
        ? { sliceWatch: portSliceWatch(init.slicePort) }
        : {}),
  });
  void host.warm().then(() => scope.postMessage({ type: "ready" }));
}

scope.addEventListener("message", onInit as EventListener);
