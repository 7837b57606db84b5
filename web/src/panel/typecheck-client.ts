/**
 * The page's side of the type check: imported only when the person asks for a check (the `Check types`
 * button), so neither this module nor the worker it starts is in the main bundle. It fetches the
 * declarations once (`/types/index.d.ts`, with the login cookie or the widget's credential) and sends each action to the worker;
 * a check never holds up a run. Answers are parsed before use; a worker that fails is replaced.
 */
import { pageFetch } from "../page-fetch.ts";
import { CheckResponse, type TypeProblem } from "./typecheck-protocol.ts";

/** How long one check may take before the page gives up on it (the first one loads the compiler). */
const CHECK_TIMEOUT_MS = 60_000;

let worker: Worker | undefined;
let declarations: Promise<string> | undefined;
let nextId = 0;

function startWorker(): Worker {
  worker ??= new Worker(new URL("./typecheck.worker.ts", import.meta.url), { type: "module", name: "typecheck" });
  return worker;
}

function loadDeclarations(): Promise<string> {
  declarations ??= pageFetch("/types/index.d.ts").then(async (res) => {
    if (!res.ok) throw new Error(`the declarations could not be loaded (HTTP ${res.status})`);
    return res.text();
  });
  declarations.catch(() => {
    declarations = undefined;
  });
  return declarations;
}

/** Type-checks one action; rejects with a message a person can read when the check cannot run. */
export async function checkTypes(code: string): Promise<TypeProblem[]> {
  const text = await loadDeclarations();
  const target = startWorker();
  const id = ++nextId;
  return new Promise<TypeProblem[]>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      target.removeEventListener("message", onMessage);
      target.removeEventListener("error", onError);
    };
    const onMessage = (event: MessageEvent<unknown>) => {
      const answer = CheckResponse.safeParse(event.data);
      if (!answer.success || answer.data.id !== id) return;
      done();
      if (answer.data.type === "checked") resolve(answer.data.problems);
      else reject(new Error(answer.data.message));
    };
    const fail = (message: string) => {
      done();
      // A stuck or broken worker would hold every later check: the next one starts a new worker.
      target.terminate();
      if (worker === target) worker = undefined;
      reject(new Error(message));
    };
    const onError = () => fail("the type checker stopped; try again");
    const timer = setTimeout(() => fail("the type check took too long"), CHECK_TIMEOUT_MS);
    target.addEventListener("message", onMessage);
    target.addEventListener("error", onError);
    target.postMessage({ type: "check", id, code, declarations: text });
  });
}
