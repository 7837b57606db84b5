// Evaluated before every action, with capture.js in the same module (guest-sources.ts). Takes the
// host's functions off the global (so the action never sees them), defines the guest's globals, and
// exports what the host calls at the end: serialise the result (inside the VM, so its size is measured
// here, under the deadline) and describe an uncaught error (name, message, position; never more).
// Every runtime compiles this again (prepared while the worker is idle, but back-to-back actions wait
// for it), so it holds only what must happen before the action: each global is made on first read from
// a module loaded then, through the host's `load` (synchronous: it evaluates one of the sandbox's
// modules at once and returns its namespace). Those modules take their builtins from intrinsics.js,
// made from the copies capture.js took here; what the host reads back from `serialise` and `describe`
// is always a primitive made inside the VM (a string, or the size of a result too large to return).
import { captured } from "nodetool:capture";

const { Global } = captured;
const defineOwn = captured.Object.defineProperty;
const stringify = captured.JSON.stringify;

/** The host's functions; the bridge and the globals module import them from here. */
export const host = Global.__nodetool_host;
delete Global.__nodetool_host;

// A global made on first read from `module`'s export (of the same name unless `key` says), then an
// ordinary data property like the rest (an assignment replaces it unread).
function lazyGlobal(name, module, key = name) {
  const define = (value) => defineOwn(Global, name, { value, writable: true, configurable: true });
  defineOwn(Global, name, {
    configurable: true,
    get() {
      const value = host.load(module)[key];
      define(value);
      return value;
    },
    set: define,
  });
}

lazyGlobal("console", "globals");
lazyGlobal("batch", "globals");
lazyGlobal("openWorkflow", "globals");
lazyGlobal("capabilities", "globals");
lazyGlobal("searchTools", "globals");
lazyGlobal("describe", "globals");
lazyGlobal("CapabilityError", "errors");
lazyGlobal("nodetool", "shim", "default");
lazyGlobal("TextEncoder", "encoding");
lazyGlobal("TextDecoder", "encoding");
lazyGlobal("atob", "encoding");
lazyGlobal("btoa", "encoding");
lazyGlobal("URL", "url");
lazyGlobal("URLSearchParams", "url");
lazyGlobal("structuredClone", "clone");
lazyGlobal("crypto", "crypto");

/** The result's JSON text, or its length when that is over `max` (a number, never an object). */
function measured(text, max) {
  return text.length > max ? text.length : text;
}

// Plain scalars need no encoder; anything else loads it. Synchronous: the host reads the answer at once.
export function serialise(namespace, max) {
  const value = namespace.default;
  const type = typeof value;
  if (value === undefined || value === null || type === "string" || type === "number" || type === "boolean") {
    return measured(stringify(value ?? null), max);
  }
  return measured(host.load("values").toWireJson(value, "result"), max);
}

/** The error's description as JSON text (describe.js, loaded by the first action that fails). */
export function describe(error) {
  return host.load("describe").describe(error);
}
