// Evaluated before every action. Takes the host's functions off the global (so the action never sees
// them), installs console capture and the guest helpers, and exports the two functions the host calls
// at the end: serialise the result (inside the VM, so its size is measured here, under the deadline)
// and describe an uncaught error (name, message, position; never more).
// This module is compiled again for every action's runtime (prepared while the worker is idle). The
// loader serves it as one module with intrinsics.js, errors.js and bridge.js (guest-sources.ts), and
// everything an action may not need loads on first use: batch and openWorkflow (dynamic imports); the
// value encoder, console formatting, capabilities() and searchTools(), and the `nodetool` global,
// which are synchronous, through the host's `load`, which evaluates one of the sandbox's modules at
// once and returns its namespace.
// Every builtin used here is one captured before the action runs (intrinsics.js), and what the host
// reads back from `serialise` and `describe` is always a primitive made inside the VM (a string, or
// the size of a result too large to return): the host never touches a guest object itself.
import { loadValues } from "nodetool:bridge";
import { CapabilityError } from "nodetool:errors";
import {
  defineField,
  ErrorCtor,
  Global,
  isInstanceOf,
  JSONStringify,
  NumberCtor,
  ObjectCreate,
  ObjectDefineProperties,
  ObjectDefineProperty,
  ObjectFreeze,
  RegExpPrototypeExec,
  StringCtor,
} from "nodetool:intrinsics";

const host = Global.__nodetool_host;
delete Global.__nodetool_host;

let helpers;
function helper(name) {
  return {
    [name](...args) {
      if (!helpers) {
        helpers = host.load("helpers");
        helpers.setCatalogSource(host.catalog);
        helpers.setTypesSource(host.types);
      }
      return helpers[name](args[0], args[1]);
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
ObjectDefineProperties(Global, {
  console: hidden(
    ObjectFreeze({
      log: logger("log"),
      info: logger("info"),
      warn: logger("warn"),
      error: logger("error"),
      debug: logger("debug"),
    }),
  ),
  batch: hidden(async (items, fn, options) => (await import("nodetool:batch")).batch(items, fn, options)),
  openWorkflow: hidden(async (id) => (await import("nodetool:graph-model")).openWorkflow(id)),
  capabilities: hidden(helper("capabilities")),
  searchTools: hidden(helper("searchTools")),
  describe: hidden(helper("describe")),
  CapabilityError: hidden(CapabilityError),
});

// A global made on first read, then an ordinary data property like the rest (an assignment replaces
// it unread): its module is evaluated only by an action that uses it.
function lazyGlobal(name, load) {
  ObjectDefineProperty(Global, name, {
    configurable: true,
    enumerable: false,
    get() {
      const value = load();
      ObjectDefineProperty(Global, name, hidden(value));
      return value;
    },
    set(value) {
      ObjectDefineProperty(Global, name, hidden(value));
    },
  });
}

const fromModule = (module, name) => () => host.load(module)[name];
lazyGlobal("nodetool", fromModule("shim", "default"));
lazyGlobal("TextEncoder", fromModule("encoding", "TextEncoder"));
lazyGlobal("TextDecoder", fromModule("encoding", "TextDecoder"));
lazyGlobal("atob", fromModule("encoding", "atob"));
lazyGlobal("btoa", fromModule("encoding", "btoa"));
lazyGlobal("URL", fromModule("url", "URL"));
lazyGlobal("URLSearchParams", fromModule("url", "URLSearchParams"));
lazyGlobal("structuredClone", fromModule("clone", "structuredClone"));
lazyGlobal("crypto", () => {
  const module = host.load("crypto");
  module.setRandomSource(host.random);
  return module.crypto;
});

/** The result's JSON text, or its length when that is over `max` (a number, never an object). */
function measured(text, max) {
  return text.length > max ? text.length : text;
}

// Plain scalars need no encoder; anything else loads it. Synchronous: the host reads the answer at once.
export function serialise(namespace, max) {
  const value = namespace.default;
  const type = typeof value;
  if (value === undefined || value === null || type === "string" || type === "number" || type === "boolean") {
    return measured(JSONStringify(value ?? null), max);
  }
  return measured(loadValues().toWireJson(value, "result"), max);
}

const POSITION = /action\.js:(\d+):(\d+)/;

// A null-prototype object: JSON.stringify finds no toJSON the action may have put on Object.prototype.
export function describe(error) {
  const out = ObjectCreate(null);
  defineField(out, "name", "Error");
  defineField(out, "message", "");
  try {
    if (isInstanceOf(error, ErrorCtor) || (error && typeof error === "object")) {
      defineField(out, "name", StringCtor(error.name ?? "Error"));
      defineField(out, "message", StringCtor(error.message ?? ""));
      if (typeof error.code === "string") defineField(out, "code", error.code);
      const at = RegExpPrototypeExec(POSITION, StringCtor(error.stack ?? ""));
      if (at) {
        defineField(out, "line", NumberCtor(at[1]));
        defineField(out, "column", NumberCtor(at[2]));
      }
    } else {
      defineField(out, "message", StringCtor(error));
    }
  } catch {
    defineField(out, "message", "(the thrown value could not be described)");
  }
  return JSONStringify(out);
}
