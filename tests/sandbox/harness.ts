/**
 * Test fixtures for the sandbox: an in-process host (the real SandboxHost, real QuickJS, no thread),
 * and capability runs made from `createRun` with in-memory implementations and a gate the test scripts.
 * The thread (watchdog, termination) is exercised through NodeSandboxHost in tests/hostile.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { type CallRouter, callRouter } from "../../server-bridge/calls/router.ts";
import { defaultLibrary } from "../../server-bridge/packs/index.ts";
import { serveBatch } from "../../server-bridge/sandbox/serve-batch.ts";
import { findSpec, MODULE_NAMES } from "../../shared/capabilities/table.ts";
import type { Mode } from "../../shared/capabilities/types.ts";
import type { Approver } from "../../shared/gate/approvals.ts";
import { type Gate, MemoryAllowSet } from "../../shared/gate/gate.ts";
import { type AuditRecord, type CapabilityImpl, type CapabilityRun, createRun } from "../../shared/gate/invoke.ts";
import { CallBatch, type LimitOverrides, type PackInfo, type RunResponse } from "../../shared/protocol/worker.ts";
import { SandboxHost } from "../../worker/host/runtime.ts";
import { compileNodeWasm } from "../../worker/node-wasm.ts";

let wasm: Promise<WebAssembly.Module> | undefined;
const compiled = () => {
  wasm ??= compileNodeWasm();
  return wasm;
};

export interface InProcessSandbox extends Disposable {
  readonly host: SandboxHost;
  run(
    action: string,
    options?: { mounted?: readonly string[]; packs?: PackInfo[]; limits?: LimitOverrides },
  ): Promise<RunResponse>;
}

let runCounter = 0;

export function inProcessSandbox(router: CallRouter, defaults: { limits?: LimitOverrides } = {}): InProcessSandbox {
  const controllers = new Map<string, AbortController>();
  const host: SandboxHost = new SandboxHost({
    variant,
    wasm: compiled,
    sendCalls: async (raw) => {
      const batch = CallBatch.parse(raw);
      const signal = controllers.get(batch.run_id)?.signal ?? AbortSignal.abort();
      serveBatch({ batch, router, signal, settle: (s) => host.settle(s) });
    },
  });
  return {
    host,
    async run(action, options = {}) {
      const run_id = `run_${++runCounter}`;
      const controller = new AbortController();
      controllers.set(run_id, controller);
      try {
        return await host.run({
          type: "run",
          run_id,
          action,
          mounted: [...(options.mounted ?? MODULE_NAMES)],
          packs: options.packs ?? defaultLibrary().packInfo(),
          limits: { ...defaults.limits, ...options.limits },
        });
      } finally {
        controller.abort();
        controllers.delete(run_id);
      }
    },
    [Symbol.dispose]() {
      host.dispose();
    },
  };
}

export { ScriptedApprover } from "../support/approver.ts";

export function scriptedGate(mode: Mode, approver: Approver): Gate {
  return { mode: () => mode, allowSet: new MemoryAllowSet(), approver, approvalTimeoutMs: 60_000 };
}

interface StoredWorkflow {
  id: string;
  name: string;
  description: string;
  graph: unknown;
  version: number;
}

/** In-memory implementations of a few capabilities; anything else answers a fixed echo. */
export function memoryImpls(): { workflows: Map<string, StoredWorkflow>; impls: Record<string, CapabilityImpl> } {
  const workflows = new Map<string, StoredWorkflow>();
  let n = 0;
  const impls: Record<string, CapabilityImpl> = {
    list_workflows: async (_run, args: { limit: number }) => [...workflows.values()].slice(0, args.limit),
    get_workflow: async (_run, args: { workflow_id: string }) => {
      const wf = workflows.get(args.workflow_id);
      if (!wf) throw new Error(`no workflow ${args.workflow_id}`);
      return wf;
    },
    create_workflow: async (_run, args: { name: string; description: string; graph: unknown }) => {
      const wf = { id: `wf_${++n}`, name: args.name, description: args.description, graph: args.graph, version: 1 };
      workflows.set(wf.id, wf);
      return wf;
    },
  };
  return { workflows, impls };
}

export function memoryRun(options: { gate: Gate; impls?: Record<string, CapabilityImpl>; signal?: AbortSignal }): {
  run: CapabilityRun<unknown>;
  audit: AuditRecord[];
} {
  const audit: AuditRecord[] = [];
  const impls = options.impls ?? memoryImpls().impls;
  const run = createRun<unknown>({
    context: {
      user_id: "u_test",
      session_id: "s_test",
      run_id: `r_${++runCounter}`,
      signal: options.signal ?? new AbortController().signal,
    },
    gate: options.gate,
    services: {},
    loadImpl: async (spec) => {
      const impl = impls[spec.name];
      if (impl) return impl;
      if (!findSpec(spec.name)) throw new Error("unknown");
      return async (_run, args) => ({ echo: spec.name, args });
    },
    audit: (record) => audit.push(record),
  });
  return { run, audit };
}

/** A router over a memory run with every module mounted and every first-party pack allowed. */
export function memoryRouter(run: CapabilityRun<unknown>, mounted: readonly string[] = MODULE_NAMES): CallRouter {
  return callRouter({ run, mounted, library: defaultLibrary() });
}
