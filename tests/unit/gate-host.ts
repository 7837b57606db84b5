/**
 * A test host for the invoke ladder: a real `createRun` over the real spec table, with in-memory
 * implementations keyed by spec name, a counting `loadImpl`, a recording audit sink and scripted
 * approvers. Nothing here imitates the ladder; it only watches what the ladder does.
 */

import type { Mode } from "../../shared/capabilities/types.ts";
import {
  type ApprovalAnswer,
  type ApprovalOutcome,
  type ApprovalRequest,
  type Approver,
  approvalHash,
  type Monitor,
  type MonitorVerdict,
} from "../../shared/gate/approvals.ts";
import { type Gate, MemoryAllowSet } from "../../shared/gate/gate.ts";
import { type AuditRecord, type CapabilityImpl, type CapabilityRun, createRun } from "../../shared/gate/invoke.ts";
import { type Graph, toDigraph, validateGraph } from "../../shared/graph/document.ts";

export type TestServices = Record<string, never>;
export type TestImpl = CapabilityImpl<TestServices>;

export interface ImplCall {
  capability: string;
  args: unknown;
}

interface StoredWorkflow {
  id: string;
  name: string;
  description: string;
  graph: Graph;
  version: number;
}

/** In-memory implementations of every spec in the table; each records its call. */
function memoryImpls(calls: ImplCall[]): Record<string, TestImpl> {
  const workflows = new Map<string, StoredWorkflow>();
  const memories = new Map<string, { id: string; content: string; tags: string[] }>();
  const shared = new Map<string, unknown>();
  let next = 0;
  const impl =
    <TArgs>(capability: string, body: (args: TArgs) => unknown): TestImpl =>
    async (_run, args: TArgs) => {
      calls.push({ capability, args });
      return body(args);
    };
  const wf = (id: string) => workflows.get(id) ?? null;
  return {
    list_workflows: impl("list_workflows", (a: { limit: number; offset: number }) =>
      [...workflows.values()].slice(a.offset, a.offset + a.limit),
    ),
    get_workflow: impl("get_workflow", (a: { workflow_id: string }) => wf(a.workflow_id)),
    create_workflow: impl("create_workflow", (a: { name: string; description: string; graph: Graph }) => {
      const id = `wf_${++next}`;
      workflows.set(id, { id, ...a, version: 1 });
      return { id, version: 1 };
    }),
    update_workflow: impl("update_workflow", (a: { workflow_id: string; name?: string }) => {
      const found = wf(a.workflow_id);
      if (!found) return null;
      found.version += 1;
      if (a.name !== undefined) found.name = a.name;
      return { id: found.id, version: found.version };
    }),
    delete_workflow: impl("delete_workflow", (a: { workflow_id: string }) => ({
      deleted: workflows.delete(a.workflow_id),
    })),
    validate_workflow: impl("validate_workflow", (a: { workflow_id?: string; graph?: Graph }) =>
      validateGraph(a.graph ?? wf(a.workflow_id ?? "")?.graph ?? { nodes: [], edges: [] }),
    ),
    export_workflow_digraph: impl("export_workflow_digraph", (a: { workflow_id: string }) => {
      const found = wf(a.workflow_id);
      return found ? toDigraph(found.name, found.graph) : null;
    }),
    save_memory: impl("save_memory", (a: { content: string; tags: string[] }) => {
      const id = `mem_${++next}`;
      memories.set(id, { id, ...a });
      return { id };
    }),
    list_memories: impl("list_memories", (a: { limit: number }) => [...memories.values()].slice(0, a.limit)),
    search_memories: impl("search_memories", (a: { query: string }) =>
      [...memories.values()].filter((m) => m.content.includes(a.query)),
    ),
    delete_memory: impl("delete_memory", (a: { memory_id: string }) => ({ deleted: memories.delete(a.memory_id) })),
    list_shared: impl("list_shared", () => [...shared.keys()]),
    read_shared: impl("read_shared", (a: { key: string }) => shared.get(a.key) ?? null),
    share_result: impl("share_result", (a: { key: string; value: unknown }) => {
      shared.set(a.key, a.value);
      return { key: a.key };
    }),
  };
}

export interface TestHostOptions {
  mode?: Mode;
  /** A complete gate (e.g. the headless one); `mode`, `approver`, `monitor`, `approvalTimeoutMs` are then ignored. */
  gate?: Gate;
  approver?: Approver;
  monitor?: Monitor;
  approvalTimeoutMs?: number;
  /** Replace some implementations, by spec name. */
  impls?: Record<string, TestImpl>;
}

export interface TestHost extends Disposable {
  readonly run: CapabilityRun<TestServices>;
  readonly gate: Gate;
  readonly allowSet: MemoryAllowSet;
  readonly audits: AuditRecord[];
  /** Spec names passed to `loadImpl`, in order: the test's load counter. */
  readonly loads: string[];
  readonly calls: ImplCall[];
  readonly monitorCalls: { capability: string; args: unknown }[];
  readonly logged: { capability: string; err: unknown }[];
  setMode(mode: Mode): void;
  /** Ends the run: aborts its signal, as the server does on run.end or cancel. */
  end(): void;
}

export function testHost(options: TestHostOptions = {}): TestHost {
  let mode: Mode = options.mode ?? "default";
  const allowSet = new MemoryAllowSet();
  const monitorCalls: TestHost["monitorCalls"] = [];
  const monitor = options.monitor;
  const gate: Gate = options.gate ?? {
    mode: () => mode,
    allowSet,
    approver: options.approver ?? scriptedApprover("allow").approver,
    approvalTimeoutMs: options.approvalTimeoutMs ?? 60_000,
    monitor: (call) => {
      monitorCalls.push({ capability: call.capability, args: call.args });
      return monitor ? monitor(call) : ({ allow: true } satisfies MonitorVerdict);
    },
  };
  const audits: AuditRecord[] = [];
  const loads: string[] = [];
  const calls: ImplCall[] = [];
  const logged: TestHost["logged"] = [];
  const impls = { ...memoryImpls(calls), ...options.impls };
  const controller = new AbortController();
  const run = createRun<TestServices>({
    context: { user_id: "user_1", session_id: "ses_1", run_id: "run_1", signal: controller.signal },
    gate,
    services: {},
    loadImpl: async (spec) => {
      loads.push(spec.name);
      const found = impls[spec.name];
      if (!found) throw new Error(`test host has no implementation for ${spec.name}`);
      return found;
    },
    audit: (record) => audits.push(record),
    logError: (capability, err) => logged.push({ capability, err }),
  });
  const end = () => controller.abort(new Error("run ended by the test"));
  return {
    run,
    gate,
    allowSet,
    audits,
    loads,
    calls,
    monitorCalls,
    logged,
    setMode: (next) => {
      mode = next;
    },
    end,
    [Symbol.dispose]: end,
  };
}

export interface RecordingApprover {
  approver: Approver;
  readonly requests: ApprovalRequest[];
  /** The signal the gate handed to each ask, to check that the gate says when it stopped waiting. */
  readonly signals: AbortSignal[];
}

/** Answers each request in turn, with its own id and hash; the last answer repeats. */
export function scriptedApprover(...answers: ApprovalAnswer[]): RecordingApprover {
  const requests: ApprovalRequest[] = [];
  const signals: AbortSignal[] = [];
  return {
    requests,
    signals,
    approver: {
      async ask(request, signal) {
        requests.push(request);
        signals.push(signal);
        const answer = answers[Math.min(requests.length, answers.length) - 1] ?? "deny";
        return { kind: "answer", answer, approval_id: request.approval_id, hash: request.hash };
      },
    },
  };
}

/** Never answers; settles only once the gate aborts its signal (the gate has stopped listening by then). */
export function silentApprover(): RecordingApprover {
  const requests: ApprovalRequest[] = [];
  const signals: AbortSignal[] = [];
  return {
    requests,
    signals,
    approver: {
      ask(request, signal) {
        requests.push(request);
        signals.push(signal);
        return new Promise<ApprovalOutcome>((resolve) => {
          signal.addEventListener("abort", () => resolve({ kind: "timeout" }), { once: true });
        });
      },
    },
  };
}

/** Allows the first request properly, then answers every later one with that first, consumed answer. */
export function replayingApprover(): RecordingApprover {
  const requests: ApprovalRequest[] = [];
  let first: ApprovalOutcome | undefined;
  return {
    requests,
    signals: [],
    approver: {
      async ask(request) {
        requests.push(request);
        first ??= { kind: "answer", answer: "allow", approval_id: request.approval_id, hash: request.hash };
        return first;
      },
    },
  };
}

/** Answers "allow" with this request's id but the hash of other arguments (`swap` applied to the args). */
export function argSwappingApprover(swap: (args: Record<string, unknown>) => unknown): RecordingApprover {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    signals: [],
    approver: {
      async ask(request) {
        requests.push(request);
        const other = swap({ ...(request.args as Record<string, unknown>) });
        const hash = await approvalHash(request.run_id, request.capability, other);
        return { kind: "answer", answer: "allow", approval_id: request.approval_id, hash };
      },
    },
  };
}
