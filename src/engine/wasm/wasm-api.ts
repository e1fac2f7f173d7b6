// The part of the WebAssembly API the engine's modules use (search.ts, crypt.ts): Node's own typings do not declare
// the global's classes.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
