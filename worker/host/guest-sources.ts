/**
 * The guest modules' source text (worker/guest/*.js, shipped into the VM as source, never as bytecode).
 * Imported with `?raw`: Vite (browser build, vitest) handles that natively; the Node worker build
 * (server-bridge/sandbox/build.ts) has an esbuild plugin for it.
 *
 * Every runtime evaluates the setup module before its action arrives: capture.js (the builtins' values,
 * copied before anything else runs) and setup.js, served as one (composing drops setup's import of
 * capture, so their top-level names must not clash; the loader resolves `nodetool:capture` to the
 * setup module). It is kept small because it is compiled for every action, back to back too; all the
 * rest (intrinsics, errors, the bridge, the encoders) is a module of its own, loaded on first use.
 *
 * Whole-line comments are dropped before the sources are shipped: every runtime compiles the setup
 * module again, and a third of its text is comments. (The guest files keep every comment at the start
 * of a line; guest-intrinsics.test.ts parses the files as they are, so this stays true.)
 */
import batch from "../guest/batch.js?raw";
import bridge from "../guest/bridge.js?raw";
import capture from "../guest/capture.js?raw";
import clone from "../guest/clone.js?raw";
import crypto from "../guest/crypto.js?raw";
import describe from "../guest/describe.js?raw";
import encoding from "../guest/encoding.js?raw";
import errors from "../guest/errors.js?raw";
import format from "../guest/format.js?raw";
import globals from "../guest/globals.js?raw";
import graphModel from "../guest/graph-model.js?raw";
import helpers from "../guest/helpers.js?raw";
import intrinsics from "../guest/intrinsics.js?raw";
import namespaces from "../guest/namespaces.js?raw";
import punycode from "../guest/punycode.js?raw";
import setup from "../guest/setup.js?raw";
import url from "../guest/url.js?raw";
import urlIp from "../guest/url-ip.js?raw";
import urlParse from "../guest/url-parse.js?raw";
import values from "../guest/values.js?raw";

/** Module names (after `nodetool:`) that are part of the setup module. */
export const MERGED_INTO_SETUP: ReadonlySet<string> = new Set(["capture"]);

/** One (possibly multi-line) `import {...} from "nodetool:<merged>";` statement. */
const MERGED_IMPORT = /^import [^;]*? from "nodetool:capture";\n/gm;

const LINE_COMMENT = /^[ \t]*\/\/.*\n/gm;
const BLOCK_COMMENT = /^[ \t]*\/\*[\s\S]*?\*\/[ \t]*\n/gm;

/** The source without its whole-line comments. */
export function withoutComments(source: string): string {
  return source.replace(BLOCK_COMMENT, "").replace(LINE_COMMENT, "");
}

function composeSetup(parts: readonly string[]): string {
  return parts.map((part) => withoutComments(part).replace(MERGED_IMPORT, "")).join("\n");
}

/** `nodetool:setup`, evaluated first in every action's context. */
export const SETUP_SOURCE = composeSetup([capture, setup]);

/** By module name after `nodetool:`. */
export const GUEST_SOURCES: Readonly<Record<string, string>> = Object.freeze({
  batch: withoutComments(batch),
  bridge: withoutComments(bridge),
  clone: withoutComments(clone),
  crypto: withoutComments(crypto),
  describe: withoutComments(describe),
  encoding: withoutComments(encoding),
  errors: withoutComments(errors),
  format: withoutComments(format),
  globals: withoutComments(globals),
  "graph-model": withoutComments(graphModel),
  helpers: withoutComments(helpers),
  intrinsics: withoutComments(intrinsics),
  namespaces: withoutComments(namespaces),
  punycode: withoutComments(punycode),
  setup: SETUP_SOURCE,
  url: withoutComments(url),
  "url-ip": withoutComments(urlIp),
  "url-parse": withoutComments(urlParse),
  values: withoutComments(values),
});
