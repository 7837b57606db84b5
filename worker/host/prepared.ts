/**
 * A fresh runtime and context made ready for the next action before that action arrives: the
 * context is created and the setup module (errors, bridge, helpers, console) evaluated while the
 * worker is idle, so an action's start is only binding it and linking its facades.
 *
 * Still one runtime per action: a prepared runtime has run nothing but the sandbox's own setup, is
 * taken by exactly one action and dies with it; it is never handed back. Everything that belongs to
 * the action (its call bridge, logs, module scope, limits, deadline) is bound when it is taken: the
 * host functions and hooks installed at preparation reach the action only through that binding.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import { describeName } from "../../shared/declarations/describe.ts";
import { catalog, catalogSchemas, INTERNAL_PREFIX } from "../../shared/sandbox/facade.ts";
import { type ImportScope, unknownMethod } from "../../shared/sandbox/imports.ts";
import type { CallBridge } from "./bridge.ts";
import { type SliceWatch, watchedSlices } from "./clock.ts";
import { SETUP_SOURCE } from "./guest-sources.ts";
import type { Limits } from "./limits.ts";
import { type ModuleResolver, SETUP_SPECIFIER } from "./loader.ts";
import type { LogBuffer } from "./observation.ts";
import { type GuestHooks, type Slice, settleNow } from "./result.ts";

/** What the prepared runtime's host functions reach once an action has taken it. */
export interface ActionBinding {
  calls: CallBridge;
  logs: LogBuffer;
  resolver: ModuleResolver;
  scope: ImportScope;
  /** The interrupt handler's answer: cancelled, or past the deadline. */
  interrupted(): boolean;
}

/** Answers for host functions reached before any action is bound (setup never calls them). */
const UNBOUND = "no action is bound to this runtime";

export class PreparedRuntime {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  /** The setup module's `serialise` and `describe`, when it exports them. */
  readonly hooks: GuestHooks = {};
  /** Handles released with the runtime (the host object, the action's promise and result). */
  readonly held: QuickJSHandle[] = [];
  /** Wall time the preparation took (the part of an action start it moves off the critical path). */
  readonly prepareMs: number;
  readonly module: QuickJSWASMModule;
  #binding: ActionBinding | undefined;
  #limits: Limits;
  /** Namespaces the host's `load` returned, by module name (each module is evaluated once). */
  readonly #loaded = new Map<string, QuickJSHandle>();
  #disposed = false;

  /** Creates the runtime and context and evaluates setup. Throws if setup fails (a host fault). */
  constructor(module: QuickJSWASMModule, limits: Limits, sliceWatch?: SliceWatch) {
    const started = performance.now();
    this.module = module;
    this.#limits = limits;
    this.runtime = module.newRuntime();
    try {
      this.#applyLimits(limits);
      this.runtime.setInterruptHandler(() => this.#binding?.interrupted() ?? false);
      this.runtime.setModuleLoader(
        (name) => this.#binding?.resolver.load(name) ?? { error: new Error(UNBOUND) },
        (base, requested) => this.#binding?.resolver.normalize(base, requested) ?? { error: new Error(UNBOUND) },
      );
      this.context = this.runtime.newContext();
      this.#installHost();
      const slice: Slice = watchedSlices(sliceWatch, () => Date.now() + limits.timeoutMs);
      // Evaluated under its own module name, so the facades' imports of the bridge find it loaded.
      const setup = slice(() => this.context.evalCode(SETUP_SOURCE, SETUP_SPECIFIER, { type: "module" }));
      const state = settleNow(this.context, this.runtime, setup, slice, (namespace) => {
        this.hooks.serialise = exportedFunction(this.context, namespace, "serialise");
        this.hooks.describe = exportedFunction(this.context, namespace, "describe");
      });
      if (!state.ok) throw new Error(`sandbox setup failed: ${state.message}`);
    } catch (err) {
      this.dispose();
      throw err;
    }
    this.prepareMs = performance.now() - started;
  }

  /** Gives this runtime to one action, with that action's limits; a second take is refused. */
  bind(binding: ActionBinding, limits: Limits): void {
    if (this.#binding || this.#disposed) throw new Error("a prepared runtime serves exactly one action");
    this.#binding = binding;
    this.#limits = limits;
    this.#applyLimits(limits);
  }

  /** Releases every handle, the context and the runtime; throws if the runtime cannot be freed. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const handle of this.held) if (handle.alive) handle.dispose();
    this.hooks.serialise?.dispose();
    this.hooks.describe?.dispose();
    // `context` is unset only when the constructor failed before creating it.
    const context = this.context as QuickJSContext | undefined;
    context?.dispose();
    this.runtime.dispose();
  }

  #applyLimits(limits: Limits): void {
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(limits.stackBytes);
  }

  /**
   * The host object the setup module takes off the global: `call`, `log`, `catalog`, `types(name)` (what
   * the guest's `describe` answers, made only when asked), `missing(module, name)` (the failure a
   * namespace object throws for a method it lacks), `random(n)` (n random bytes), and `load(name)`,
   * which evaluates one of the sandbox's own modules now and returns its namespace (the synchronous
   * helpers are compiled on first use this way, not on every action start).
   */
  #installHost(): void {
    const ctx = this.context;
    const bound = (): ActionBinding => {
      if (!this.#binding) throw new Error(UNBOUND);
      return this.#binding;
    };
    const text = (handle: QuickJSHandle, fallback: string) =>
      ctx.typeof(handle) === "string" ? ctx.getString(handle) : fallback;
    const host = ctx.newObject();
    this.held.push(host);
    const call = ctx.newFunction("call", (moduleH, nameH, argsH) =>
      bound().calls.call(text(moduleH, ""), text(nameH, ""), text(argsH, "[]")),
    );
    const log = ctx.newFunction("log", (levelH, textH) => {
      bound().logs.push(text(levelH, "log"), text(textH, ""));
    });
    // `catalog()`: every row; `catalog(name)`: that capability's JSON Schemas (searchTools' hits).
    const catalogFn = ctx.newFunction("catalog", (nameH?: QuickJSHandle) => {
      const { scope } = bound();
      // Called with no argument, there is no handle at all.
      if (nameH !== undefined && ctx.typeof(nameH) === "string") {
        return ctx.newString(JSON.stringify(catalogSchemas(ctx.getString(nameH), scope.mounted)));
      }
      return ctx.newString(JSON.stringify(catalog(scope.mounted, scope.packs)));
    });
    const types = ctx.newFunction("types", (nameH?: QuickJSHandle) => {
      const { scope } = bound();
      const name = nameH !== undefined && ctx.typeof(nameH) === "string" ? ctx.getString(nameH) : undefined;
      return ctx.newString(JSON.stringify(describeName(name, { ...scope, limits: this.#limits })));
    });
    const missing = ctx.newFunction("missing", (moduleH, nameH) =>
      ctx.newString(JSON.stringify(unknownMethod(text(moduleH, ""), text(nameH, ""), bound().scope))),
    );
    // The guest's randomness (crypto.getRandomValues, randomUUID): the host's Web Crypto, n bytes.
    const random = ctx.newFunction("random", (countH) => {
      const count =
        ctx.typeof(countH) === "number" ? Math.max(0, Math.min(65536, Math.floor(ctx.getNumber(countH)))) : 0;
      return ctx.newArrayBuffer(globalThis.crypto.getRandomValues(new Uint8Array(count)).buffer);
    });
    const load = ctx.newFunction("load", (nameH) => {
      const name = text(nameH, "");
      const cached = this.#loaded.get(name);
      if (cached) return cached.dup();
      // Through an import, so the module is the one every other import of it finds (one instance, one
      // CapabilityError class), evaluated once, by the loader's rules.
      const specifier = JSON.stringify(`${INTERNAL_PREFIX}${name}`);
      const evaluated = ctx.evalCode(`export * as m from ${specifier};`, `${INTERNAL_PREFIX}load:${name}`, {
        type: "module",
      });
      if (evaluated.error) return { error: evaluated.error };
      // A module with no top-level await evaluates synchronously: its namespace comes back at once.
      const state = ctx.getPromiseState(evaluated.value);
      if (state.type === "fulfilled") {
        if (!state.notAPromise) evaluated.value.dispose();
        const namespace = ctx.getProp(state.value, "m");
        state.value.dispose();
        this.#loaded.set(name, namespace);
        this.held.push(namespace);
        return namespace.dup();
      }
      evaluated.value.dispose();
      if (state.type === "rejected") return { error: state.error };
      return { error: ctx.newError(`Module "${INTERNAL_PREFIX}${name}" cannot be loaded synchronously.`) };
    });
    ctx.setProp(host, "call", call);
    ctx.setProp(host, "log", log);
    ctx.setProp(host, "catalog", catalogFn);
    ctx.setProp(host, "types", types);
    ctx.setProp(host, "missing", missing);
    ctx.setProp(host, "load", load);
    ctx.setProp(host, "random", random);
    ctx.setProp(ctx.global, "__nodetool_host", host);
    for (const fn of [call, log, catalogFn, types, missing, load, random]) fn.dispose();
  }
}

/** One function the setup module exports (`serialise`, `describe`), or undefined. */
function exportedFunction(ctx: QuickJSContext, namespace: QuickJSHandle, name: string): QuickJSHandle | undefined {
  const handle = ctx.getProp(namespace, name);
  if (ctx.typeof(handle) === "function") return handle;
  handle.dispose();
  return undefined;
}
