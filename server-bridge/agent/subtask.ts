/**
 * Child agents (`agents.run_subtask`, DESIGN.md section 11): the CodeAct loop run on the server for one
 * subtask, with its own step cap, in a Node sandbox of its own (never a slot the parent holds), as
 * runs of the parent's session: the same gate, allow-set and approver, so its approvals reach the
 * person's browser like any other. A read-only child's gate runs reads only. A child cannot start
 * children (the `agents` module is not mounted for it). Cancelling the parent's run stops the child;
 * the child's time is credited to the parent's deadline, and each of its steps is announced to the
 * session (`subtask_progress`) so the page shows it; its conversation is stored like any other,
 * and its tokens count in the user's daily budget and in the budget of the conversation whose action
 * started it (the parent run's thread).
 */
import { type AgentStatus, runAgent } from "../../shared/agent/loop.ts";
import type { TokenUsage } from "../../shared/agent/messages.ts";
import type { Gate } from "../../shared/gate/gate.ts";
import type { CallContext } from "../../shared/gate/invoke.ts";
import { failedObservation } from "../../shared/sandbox/executor.ts";
import type { AppServices } from "../app-services.ts";
import type { ServerRun } from "../capabilities/define.ts";
import { defaultLibrary } from "../packs/index.ts";
import { runSandboxedAction } from "../sandbox/action.ts";
import { NodeSandboxHost } from "../sandbox/host.ts";
import type { ModelRegistry } from "./models.ts";
import { imageForModel } from "./request.ts";
import { threadModelClient } from "./services.ts";

export interface SubtaskArgs {
  task: string;
  steps: number;
  read_only: boolean;
  model?: string | undefined;
}

export interface SubtaskResult {
  status: AgentStatus;
  answer: string;
  steps: number;
  usage: TokenUsage;
  thread_id: string;
}

/** What the agent gives capability implementations (ServerServices.agent). */
export interface AgentHost {
  readonly models: ModelRegistry;
  subtask(parent: ServerRun, args: SubtaskArgs, call: CallContext): Promise<SubtaskResult>;
}

/** The parent's deadline is credited with the child's time, at most this much. */
const MAX_CREDIT_MS = 10 * 60_000;

export function agentHost(app: AppServices): AgentHost {
  return {
    get models() {
      return app.agent.models;
    },
    subtask: (parent, args, call) => subtask(app, parent, args, call),
  };
}

async function subtask(
  app: AppServices,
  parent: ServerRun,
  args: SubtaskArgs,
  call: CallContext,
): Promise<SubtaskResult> {
  const { user_id: userId, session_id: sessionId, signal } = parent.context;
  const started = performance.now();
  const session = await app.sessions.view(userId, sessionId);
  const mounted = session.modules.filter((name) => name !== "agents");
  const gate: Gate = args.read_only ? { ...parent.gate, mode: () => "plan", highestMode: "plan" } : parent.gate;
  const thread = await app.agent.threads.create(userId, `Subtask: ${args.task.split("\n")[0]?.slice(0, 80) ?? ""}`);
  const library = defaultLibrary();
  const sandbox = await NodeSandboxHost.start();
  // The person sees the child's steps while the parent's action waits on it.
  let step = 0;
  const progress = (extra: { description?: string; status?: AgentStatus }) =>
    app.bus.publish(sessionId, {
      type: "subtask_progress",
      run_id: parent.context.run_id,
      thread_id: thread.id,
      step,
      steps: args.steps,
      ...extra,
    });
  try {
    const outcome = await runAgent({
      onEvent(event) {
        if (event.type !== "step_started") return;
        step += 1;
        const input = event.input && "code" in event.input ? event.input : undefined;
        progress(input ? { description: input.title ?? input.description } : {});
      },
      model: threadModelClient(app.agent, userId, thread.id, { model: args.model, chargeTo: parent.context.thread_id }),
      history: [],
      request: args.task,
      stepCap: args.steps,
      signal,
      async execute(code) {
        const live = await app.runs.start(userId, sessionId, { gate, threadId: thread.id });
        try {
          return await runSandboxedAction(sandbox, {
            action: code,
            run: live.run,
            mounted,
            packs: session.packs,
            library,
            signal,
          });
        } catch {
          return { observation: failedObservation("run_ended", "The sandbox stopped before the action finished.", 0) };
        } finally {
          await app.runs.end(userId, live.id, "ended");
        }
      },
      viewImage: (input) => imageForModel(app, userId, input),
    });
    progress({ status: outcome.status });
    return {
      status: outcome.status,
      answer: outcome.answer,
      steps: outcome.steps,
      usage: outcome.usage,
      thread_id: thread.id,
    };
  } finally {
    await sandbox.dispose();
    call.credit(Math.min(MAX_CREDIT_MS, performance.now() - started));
  }
}
