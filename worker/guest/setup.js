// Evaluated before every action. Takes the host's functions off the global (so the action never sees
// them), installs console capture and the guest helpers, and exports the two functions the host calls
// at the end: serialise the result (inside the VM, so its size is measured here, under the deadline)
// and describe an uncaught error (name, message, position; never more).
// This module is compiled again on every action start: that is the sandbox's warm start. The loader
// serves it as one module with errors.js and bridge.js (guest-sources.ts), and everything an action
// may not need loads on first use: the value encoder and batch (dynamic imports); console formatting,
// capabilities() and searchTools(), and the `nodetool` global, which are synchronous, through the
// host's `load`, which evaluates one of the sandbox's modules at once and returns its namespace.
import { loadValues } from "nodetool:bridge";
import { CapabilityError } from "nodetool:errors";

const host = globalThis.__nodetool_host;
delete globalThis.__nodetool_host;

let helpers;
function helper(name) {
  return {
    [name](...args) {
      if (!helpers) {
        helpers = host.load("helpers");
        helpers.setCatalogSource(host.catalog);
        helpers.setTypesSource(host.types);
      }
      return helpers[name](...args);
    },
  }[name];
}

let formatLine;
function logger(level) {
  return (...args) => {
    formatLine ??= host.load("format").formatLine;
    host.log(level, formatLine(args));
  };
}

const hidden = (value) => ({ value, writable: true, configurable: true, enumerable: false });
Object.defineProperties(globalThis, {
  console: hidden(
    Object.freeze({
      log: logger("log"),
      info: logger("info"),
      warn: logger("warn"),
      error: logger("error"),
      debug: logger("debug"),
    }),
  ),
  batch: hidden(async (...args) => (await import("nodetool:batch")).batch(...args)),
  openWorkflow: hidden(async (...args) => (await import("nodetool:graph-model")).openWorkflow(...args)),
  capabilities: hidden(helper("capabilities")),
  searchTools: hidden(helper("searchTools")),
  describe: hidden(helper("describe")),
  CapabilityError: hidden(CapabilityError),
});

// Read once, then an ordinary data property like the rest (an assignment replaces it unread).
Object.defineProperty(globalThis, "nodetool", {
  configurable: true,
  enumerable: false,
  get() {
    const shim = host.load("shim").default;
    Object.defineProperty(globalThis, "nodetool", hidden(shim));
    return shim;
  },
  set(value) {
    Object.defineProperty(globalThis, "nodetool", hidden(value));
  },
});

function measured(text, max) {
  return text.length > max ? { tooLarge: text.length } : text;
}

// Plain scalars need no encoder; anything else loads it (the host drains the jobs that takes).
export function serialise(namespace, max) {
  const value = namespace.default;
  const type = typeof value;
  if (value === undefined || value === null || type === "string" || type === "number" || type === "boolean") {
    return measured(JSON.stringify(value ?? null), max);
  }
  return loadValues().then(({ toWireJson }) => measured(toWireJson(value, "result"), max));
}

const POSITION = /action\.js:(\d+):(\d+)/;

export function describe(error) {
  const out = { name: "Error", message: "" };
  try {
    if (error instanceof Error || (error && typeof error === "object")) {
      out.name = String(error.name ?? "Error");
      out.message = String(error.message ?? "");
      if (typeof error.code === "string") out.code = error.code;
      const at = POSITION.exec(String(error.stack ?? ""));
      if (at) {
        out.line = Number(at[1]);
        out.column = Number(at[2]);
      }
    } else {
      out.message = String(error);
    }
  } catch {
    out.message = "(the thrown value could not be described)";
  }
  return JSON.stringify(out);
}
