// The private bridge: the only path from a facade to the host. The loader lets generated facades and
// the sandbox's own modules import it; an action that names it is refused. It captures the host's call
// function at evaluation (it runs as part of the setup module, before setup deletes the global the
// host put it on). The value encoder loads on the first call: an action that makes none never pays.
import { CapabilityError } from "nodetool:errors";

const hostCall = globalThis.__nodetool_host.call;
const hostMissing = globalThis.__nodetool_host.missing;
// Taken before the action runs: an action that replaces `JSON.parse` does not break its own calls.
export const parseJson = JSON.parse;
let values;

/** The value encoder (nodetool:values), imported once, on first use. */
export function loadValues() {
  values ??= import("nodetool:values");
  return values;
}

export async function call(module, name, args) {
  const { fromWire, toWireJson } = await loadValues();
  let payload;
  try {
    payload = toWireJson(args, "args");
  } catch (err) {
    throw new CapabilityError({ code: "invalid_call", message: `${name}: ${err.message}`, capability: name });
  }
  const text = await hostCall(module, name, payload);
  const answer = parseJson(text);
  if (answer.ok) return fromWire(answer.value);
  throw new CapabilityError(answer.error);
}

// One export of a facade (or of the `nodetool` shim): an async function named after its wire name.
// Facades are built from this at evaluation rather than spelled out as source: every token of source
// is compiled again on every action start, a call to `bind` is a handful of them.
export function bind(module, wire) {
  return { [wire]: async (...args) => call(module, wire, args) }[wire];
}

// A namespace object (a facade's, or the `nodetool` shim's): reading a method it lacks throws
// CapabilityError unknown_export naming the module, the name and the closest methods, instead of
// answering undefined (whose call would be a bare TypeError). `then`, `toJSON` and symbols stay
// undefined, so `await ns` and JSON.stringify(ns) behave as on a plain object; `in` is unchanged.
export function guard(module, namespace) {
  return new Proxy(namespace, {
    get(target, key, receiver) {
      if (typeof key === "symbol" || key in target || key === "then" || key === "toJSON") {
        return Reflect.get(target, key, receiver);
      }
      throw new CapabilityError(parseJson(hostMissing(module, key)));
    },
  });
}
