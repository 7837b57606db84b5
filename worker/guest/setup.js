// Evaluated before every action. Takes the host's functions off the global (so the action never sees
// them), installs console capture and the guest helpers, and registers with the host the two
// functions it calls at the end: serialise the result (inside the VM, so its size is measured here,
// under the deadline) and describe an uncaught error (name, message, position; never more).
// Everything an action may not need (the value encoder, batch) loads on first use: this module runs
// before every action, and its cost is the sandbox's warm start.
import "nodetool:bridge";
import { CapabilityError } from "nodetool:errors";
import { capabilities, searchTools, setCatalogSource } from "nodetool:helpers";
import "nodetool:shim";

const host = globalThis.__nodetool_host;
delete globalThis.__nodetool_host;
setCatalogSource(host.catalog);

const LINE_MAX = 4000;

let values;
const loadValues = () => {
  values ??= import("nodetool:values");
  return values;
};

function show(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    const text = JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? `${v}n` : v));
    return text === undefined ? String(value) : text;
  } catch {
    try {
      return String(value);
    } catch {
      return "[unprintable]";
    }
  }
}

function logger(level) {
  return (...args) => {
    let line = args.map(show).join(" ");
    if (line.length > LINE_MAX) line = `${line.slice(0, LINE_MAX)}... [line truncated]`;
    host.log(level, line);
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
  capabilities: hidden(capabilities),
  searchTools: hidden(searchTools),
  CapabilityError: hidden(CapabilityError),
});

function measured(text, max) {
  return text.length > max ? { tooLarge: text.length } : text;
}

// Plain scalars need no encoder; anything else loads it (the host drains the jobs that takes).
function serialise(namespace, max) {
  const value = namespace.default;
  const type = typeof value;
  if (value === undefined || value === null || type === "string" || type === "number" || type === "boolean") {
    return measured(JSON.stringify(value ?? null), max);
  }
  return loadValues().then(({ toWireJson }) => measured(toWireJson(value, "result"), max));
}

const POSITION = /action\.js:(\d+):(\d+)/;

function describe(error) {
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

host.register(serialise, describe);
