/**
 * A scripted approver for tests: answers from a list, with one answer for every ask, or by a function
 * of the request; records every request it was asked.
 */
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../../shared/gate/approvals.ts";

type Script = ApprovalAnswer | ApprovalAnswer[] | ((request: ApprovalRequest) => ApprovalAnswer);

export class ScriptedApprover implements Approver {
  readonly asked: ApprovalRequest[] = [];
  readonly #next: (request: ApprovalRequest) => ApprovalAnswer;
  readonly #delayMs: number;

  constructor(script: Script, options: { delayMs?: number } = {}) {
    if (typeof script === "function") this.#next = script;
    else if (Array.isArray(script)) {
      const answers = [...script];
      this.#next = () => answers.shift() ?? "deny";
    } else this.#next = () => script;
    this.#delayMs = options.delayMs ?? 0;
  }

  async ask(request: ApprovalRequest) {
    this.asked.push(request);
    if (this.#delayMs > 0) await new Promise((r) => setTimeout(r, this.#delayMs));
    return {
      kind: "answer" as const,
      answer: this.#next(request),
      approval_id: request.approval_id,
      hash: request.hash,
    };
  }
}
