/**
 * The guest modules' source text (worker/guest/*.js, shipped into the VM as source, never as bytecode).
 * Imported with `?raw`: Vite (browser build, vitest) handles that natively; the Node worker build
 * (server-bridge/sandbox/build.ts) has an esbuild plugin for it.
 */
import batch from "../guest/batch.js?raw";
import bridge from "../guest/bridge.js?raw";
import errors from "../guest/errors.js?raw";
import graphModel from "../guest/graph-model.js?raw";
import helpers from "../guest/helpers.js?raw";
import setup from "../guest/setup.js?raw";
import values from "../guest/values.js?raw";

/** By module name after `nodetool:`. */
export const GUEST_SOURCES: Readonly<Record<string, string>> = Object.freeze({
  batch,
  bridge,
  errors,
  "graph-model": graphModel,
  helpers,
  setup,
  values,
});
