/** The decision matrix (DESIGN.md section 5, step 4): mode x category -> run | ask | block. */
import type { Actor, Category, Mode } from "../capabilities/types.ts";

export type Decision = "run" | "ask" | "block";

const MATRIX: Record<Mode, Record<Category, Decision>> = {
  plan: { read: "run", write: "block", execute: "block", external: "block" },
  default: { read: "run", write: "ask", execute: "ask", external: "ask" },
  auto: { read: "run", write: "run", execute: "run", external: "run" },
};

export function decide(mode: Mode, category: Category, actor: Actor = "agent"): Decision {
  // What a person does with the editor's own controls is theirs: never prompted, never blocked.
  if (actor === "user") return "run";
  return MATRIX[mode][category];
}
