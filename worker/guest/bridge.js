// The private bridge: the only path from a facade to the host. The loader lets generated facades and
// the sandbox's setup import it; an action that names it is refused. It captures the host's call
// function at evaluation (setup evaluates it first, then deletes the global the host put it on). The
// value encoder loads on the first call: an action that makes none never pays for it.
import { CapabilityError } from "nodetool:errors";

const hostCall = globalThis.__nodetool_host.call;
let values;

export async function call(module, name, args) {
  values ??= import("nodetool:values");
  const { fromWire, toWireJson } = await values;
  let payload;
  try {
    payload = toWireJson(args, "args");
  } catch (err) {
    throw new CapabilityError({ code: "invalid_call", message: `${name}: ${err.message}`, capability: name });
  }
  const text = await hostCall(module, name, payload);
  const answer = JSON.parse(text);
  if (answer.ok) return fromWire(answer.value);
  throw new CapabilityError(answer.error);
}
