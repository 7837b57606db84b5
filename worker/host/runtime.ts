/**
 * The sandbox host: one QuickJS wasm module per worker, one action at a time on it (wasm memory never
 * shrinks, so actions never overlap), a fresh runtime and context per action. The wasm is compiled
 * once; the module is instantiated against a bounded `WebAssembly.Memory` and rebuilt whenever a run
 * faults at the host level (a wasm trap poisons the whole module).
 *
 * While the worker is idle the host prepares the next action's runtime (prepared.ts: a new runtime and
 * context with the sandbox's setup evaluated), so a warm action starts by binding it; an action that
 * arrives before one is ready prepares its own. Either way each runtime serves one action only. The
 * runtime an action used is disposed once its response has gone out (or when the next action arrives,
 * whichever is first), off the action's own time.
 *
 * Shared by both entries (entry-browser.ts, entry-node.ts); it knows nothing of Comlink or threads: it
 * takes parsed requests and settlements, and sends call batches through the function it was given.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";
import type { CallBatch, CallSettlement, RunResponse, SandboxStats } from "../../shared/protocol/worker.ts";
import { RunRequest } from "../../shared/protocol/worker.ts";
import { analyseAction } from "../../shared/sandbox/imports.ts";
import { type ActionControl, type ActionOutcome, runAction } from "./action.ts";
import type { SliceWatch } from "./clock.ts";
import { fromHostFault } from "./failures.ts";
import { DEFAULT_LIMITS, DEFAULT_WASM_MAX_BYTES, type Limits, resolveLimits } from "./limits.ts";
import { ACTION_FAILED, buildObservation } from "./observation.ts";
import { PreparedRuntime } from "./prepared.ts";

const PAGE = 64 * 1024;
/** The release build's own initial memory (16 MiB); a supplied memory must start at least there. */
const INITIAL_WASM_BYTES = 16 * 1024 * 1024;

export interface SandboxHostOptions {
  /** The sync variant to instantiate (`@jitl/quickjs-wasmfile-release-sync`). */
  variant: QuickJSSyncVariant;
  /** The compiled wasm, compiled once per worker (the page may hand it over already compiled). */
  wasm: () => Promise<WebAssembly.Module>;
  /** Hard bound of the module's wasm memory. */
  wasmMaxBytes?: number;
  /** Defaults for every action; a request may override them. */
  limits?: Partial<Limits>;
  /** Posts a batch of guest calls to the host (throws if it cannot); results come back through `settle`. */
  sendCalls(batch: CallBatch): void;
  sliceWatch?: SliceWatch;
  yieldToHost?: () => Promise<void>;
  /** Runs the idle work (free the last runtime, prepare the next) soon; default a zero-delay timer. */
  whenIdle?: (work: () => void) => void;
  /**
   * Told each time a fresh runtime is ready for the next action (the host may prefer this worker), with
   * how many run requests the worker had received by then: a host that has sent more since knows the
   * runtime is already taken.
   */
  onPrepared?: (requests: number) => void;
}

export class SandboxHost {
  readonly #options: SandboxHostOptions;
  readonly #defaults: Limits;
  #wasm: Promise<WebAssembly.Module> | undefined;
  #module: QuickJSWASMModule | undefined;
  #memory: WebAssembly.Memory | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #current: { runId: string; control?: ActionControl } | undefined;
  #prepared: PreparedRuntime | undefined;
  #building: Promise<QuickJSWASMModule> | undefined;
  /** The runtime the last action used, disposed when the worker is next idle. */
  #retired: PreparedRuntime | undefined;
  #idleScheduled = false;
  /** Run requests received (each takes the prepared runtime, or fails before needing one). */
  #requests = 0;
  /** Counters; the rest of `stats()` is read off the host's state when asked. */
  #stats = { liveRuntimes: 0, builds: 0, actions: 0, disposeFailures: 0 };
  #disposed = false;

  constructor(options: SandboxHostOptions) {
    this.#options = options;
    this.#defaults = { ...DEFAULT_LIMITS, ...options.limits };
  }

  /** Compiles and instantiates ahead of the first action (cold start paid up front). */
  async warm(): Promise<void> {
    const module = await this.#ensureModule();
    this.#prepared ??= this.#prepare(module);
    this.#options.onPrepared?.(this.#requests);
  }

  /**
   * Does the idle work now, when no action runs (the last runtime freed, the next one prepared), and
   * answers the counters: the leak check after a hostile action (tests/hostile) reads these.
   */
  tidy(): SandboxStats {
    if (!this.#current && !this.#disposed) this.#idleWork();
    return this.stats();
  }

  /** Runs one action; queued behind any action already running. Never rejects for guest failures. */
  run(request: unknown): Promise<RunResponse> {
    this.#requests++;
    const next = this.#queue.then(() => this.#run(request));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  settle(settlement: CallSettlement): void {
    if (this.#current?.runId === settlement.run_id) this.#current.control?.settle(settlement.results);
  }

  cancel(runId: string): void {
    if (this.#current?.runId === runId) this.#current.control?.cancel();
  }

  stats(): SandboxStats {
    return {
      ...this.#stats,
      preparedRuntimes: this.#prepared ? 1 : 0,
      retiredRuntimes: this.#retired ? 1 : 0,
      wasmBytes: this.#memory?.buffer.byteLength ?? 0,
    };
  }

  dispose(): void {
    this.#disposed = true;
    this.#dropPrepared();
    this.#module = undefined;
    this.#memory = undefined;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  async #ensureModule(): Promise<QuickJSWASMModule> {
    if (this.#disposed) throw new Error("the sandbox host was disposed");
    if (this.#module) return this.#module;
    // One build at a time: warm-up and a first action arriving during it share it.
    this.#building ??= this.#build().finally(() => {
      this.#building = undefined;
    });
    return this.#building;
  }

  async #build(): Promise<QuickJSWASMModule> {
    this.#wasm ??= this.#options.wasm();
    const compiled = await this.#wasm;
    const maxBytes = Math.max(INITIAL_WASM_BYTES, this.#options.wasmMaxBytes ?? DEFAULT_WASM_MAX_BYTES);
    const memory = new WebAssembly.Memory({ initial: INITIAL_WASM_BYTES / PAGE, maximum: Math.floor(maxBytes / PAGE) });
    const variant = newVariant(this.#options.variant, { wasmModule: compiled, wasmMemory: memory });
    this.#module = await newQuickJSWASMModuleFromVariant(variant);
    this.#memory = memory;
    this.#stats.builds++;
    return this.#module;
  }

  #prepare(module: QuickJSWASMModule): PreparedRuntime {
    return new PreparedRuntime(module, this.#defaults, this.#options.sliceWatch);
  }

  /** The runtime prepared ahead for this module, or a new one prepared now. */
  #takePrepared(module: QuickJSWASMModule): { prepared: PreparedRuntime; ahead: boolean } {
    const ready = this.#prepared;
    this.#prepared = undefined;
    if (ready?.module === module) return { prepared: ready, ahead: true };
    return { prepared: this.#prepare(module), ahead: false };
  }

  /**
   * Disposes the runtime the last action used. A runtime that cannot be freed (QuickJS aborts on a
   * leaked object) has trapped the module: it is rebuilt before the next action.
   */
  #disposeRetired(): void {
    const retired = this.#retired;
    this.#retired = undefined;
    if (!retired || retired.module !== this.#module) return;
    try {
      retired.dispose();
    } catch {
      this.#stats.disposeFailures++;
      this.#resetModule();
    }
  }

  /** Once the worker is idle (the response has gone out): dispose the last runtime, prepare the next. */
  #whenIdle(): void {
    if (this.#idleScheduled) return;
    this.#idleScheduled = true;
    const schedule = this.#options.whenIdle ?? ((work) => setTimeout(work, 0));
    schedule(() => {
      this.#idleScheduled = false;
      if (this.#disposed || this.#current) return;
      this.#idleWork();
    });
  }

  #idleWork(): void {
    this.#disposeRetired();
    const module = this.#module;
    if (!module) return;
    if (!this.#prepared) {
      try {
        this.#prepared = this.#prepare(module);
      } catch {
        // A module that cannot even run setup is rebuilt by the next action.
        this.#resetModule();
        return;
      }
    }
    this.#options.onPrepared?.(this.#requests);
  }

  #resetModule(): void {
    this.#prepared = undefined;
    this.#module = undefined;
    this.#memory = undefined;
  }

  #dropPrepared(): void {
    for (const runtime of [this.#prepared, this.#retired]) {
      try {
        if (runtime?.module === this.#module) runtime?.dispose();
      } catch {
        // Its module is being dropped anyway.
      }
    }
    this.#prepared = undefined;
    this.#retired = undefined;
  }

  async #run(raw: unknown): Promise<RunResponse> {
    const started = performance.now();
    const request = RunRequest.parse(raw);
    const limits = resolveLimits(this.#defaults, request.limits);
    const scope = { mounted: request.mounted, packs: request.packs };
    let preparation = { prepare_ms: 0, prepared_ahead: false };
    const respond = (
      outcome: Omit<ActionOutcome, "setupMs" | "approvalMs"> & { approvalMs?: number },
      setupMs: number,
    ): RunResponse => {
      const observation = buildObservation(
        {
          ok: outcome.ok,
          ...(outcome.resultText !== undefined
            ? { result: JSON.parse(outcome.resultText), resultText: outcome.resultText }
            : {}),
          ...(outcome.error ? { error: outcome.error } : {}),
          logs: outcome.logs,
          calls: outcome.calls,
          durationMs: performance.now() - started,
          approvalMs: outcome.approvalMs ?? 0,
        },
        limits.maxObservationChars,
      );
      return {
        type: "run_result",
        run_id: request.run_id,
        observation,
        timings: { setup_ms: setupMs, total_ms: performance.now() - started, ...preparation },
      };
    };

    const analysis = analyseAction(request.action, scope);
    if (!analysis.ok) {
      const error =
        analysis.kind === "syntax"
          ? { code: ACTION_FAILED, message: analysis.message }
          : { code: analysis.error.code, message: analysis.error.message };
      const at = {
        ...(analysis.line !== undefined ? { line: analysis.line } : {}),
        ...(analysis.column !== undefined ? { column: analysis.column } : {}),
      };
      // Refused before it needed a runtime: the prepared one still waits (the host hears so again).
      this.#whenIdle();
      return respond({ ok: false, error: { ...error, ...at }, logs: [], calls: [] }, 0);
    }

    this.#disposeRetired();
    const module = await this.#ensureModule();
    this.#current = { runId: request.run_id };
    this.#stats.liveRuntimes++;
    this.#stats.actions++;
    let used: PreparedRuntime | undefined;
    try {
      const { prepared, ahead } = this.#takePrepared(module);
      used = prepared;
      preparation = { prepare_ms: prepared.prepareMs, prepared_ahead: ahead };
      const outcome = await runAction({
        prepared,
        source: analysis.source,
        scope,
        limits,
        io: {
          send: (calls) => this.#options.sendCalls({ type: "calls", run_id: request.run_id, calls }),
          yieldToHost: this.#options.yieldToHost ?? (() => new Promise((resolve) => setTimeout(resolve, 0))),
          ...(this.#options.sliceWatch ? { sliceWatch: this.#options.sliceWatch } : {}),
        },
        onStart: (control) => {
          if (this.#current) this.#current.control = control;
        },
      });
      return respond(outcome, outcome.setupMs);
    } catch (err) {
      // A host-level fault (wasm trap, the host's own stack) leaves the module unusable: rebuild it.
      this.#resetModule();
      this.#options.sliceWatch?.end();
      return respond({ ok: false, error: fromHostFault(err), logs: [], calls: [] }, 0);
    } finally {
      // Disposed once the response has gone out (dropped instead if the run trapped the module).
      this.#retired = used;
      this.#stats.liveRuntimes--;
      this.#current = undefined;
      this.#whenIdle();
    }
  }
}
