// Source text imported with `?raw` (guest modules) and asset URLs imported with `?url` (the wasm file
// in the browser entry). Vite handles both; the Node build handles `?raw` with an esbuild plugin.
declare module "*.js?raw" {
  const source: string;
  export default source;
}

declare module "*.wasm?url" {
  const url: string;
  export default url;
}

declare module "@jitl/quickjs-wasmfile-release-sync/wasm?url" {
  const url: string;
  export default url;
}
