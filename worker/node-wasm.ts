/**
 * Node only: the QuickJS wasm compiled from the variant package's own file (the variant's Node export
 * would fetch it itself, but we compile once and instantiate it against a bounded memory).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

export async function compileNodeWasm(): Promise<WebAssembly.Module> {
  const require = createRequire(import.meta.url);
  const path = require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
  return WebAssembly.compile(await readFile(path));
}
