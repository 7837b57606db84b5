// The guest's own globals that are functions of the sandbox: console (captured as logs), batch,
// openWorkflow, capabilities(), searchTools() and describe(). Loaded when the action first reads one
// of them (setup defines each as a global made on first read), not on every action start; the modules
// behind them (format, helpers, batch, graph-model) load on their first use in turn.
import { ObjectFreeze } from "nodetool:intrinsics";
import { host } from "nodetool:setup";

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

export const console = ObjectFreeze({
  log: logger("log"),
  info: logger("info"),
  warn: logger("warn"),
  error: logger("error"),
  debug: logger("debug"),
});
export const batch = async (items, fn, options) => (await import("nodetool:batch")).batch(items, fn, options);
export const openWorkflow = async (id) => (await import("nodetool:graph-model")).openWorkflow(id);
export const capabilities = helper("capabilities");
export const searchTools = helper("searchTools");
export const describe = helper("describe");
