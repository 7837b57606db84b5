// The private bridge: the only path from a facade to the host. The loader lets generated facades and
// the sandbox's own modules import it; an action that names it is refused. Evaluated with the first
// facade an action imports; the host's functions come from the setup module, which took them off the
// global before the action ran. The value encoder loads on first use, synchronously through the host's
// `load` (no promise an action could get in the way of): an action that makes no call never pays for it.
import { CapabilityError } from "nodetool:errors";
import { JSONParse, ObjectFreeze, ProxyCtor, ReflectGet } from "nodetool:intrinsics";
import { host } from "nodetool:setup";

const hostCall = host.call;
const hostLoad = host.load;
const hostMissing = host.missing;
/** JSON.parse as it was before the action ran (helpers and facades parse host answers with it). */
export const parseJson = JSONParse;
let values;

/** The value encoder (nodetool:values), evaluated once, on first use. */
export function loadValues() {
  values ??= hostLoad("values");
  return values;
}

export async function call(module, name, args) {
  const { fromWire, toWireJson } = loadValues();
  let payload;
  try {
    payload = toWireJson(args, "args");
  } catch (err) {
    throw new CapabilityError({ code: "invalid_call", message: `${name}: ${err.message}`, capability: name });
  }
  const text = await hostCall(module, name, payload);
  const answer = JSONParse(text);
  if (answer.ok) return fromWire(answer.value);
  throw new CapabilityError(answer.error);
}

// One export of a facade (or of the `nodetool` shim): an async function named after its wire name.
// Facades are built from this at evaluation rather than spelled out as source: every token of source
// is compiled again on every action start, a call to `bind` is a handful of them.
export function bind(module, wire) {
  return { [wire]: async (...args) => call(module, wire, args) }[wire];
}

/** Facades freeze their namespace objects with this (the action may have replaced Object.freeze). */
export const freeze = ObjectFreeze;

// A namespace object (a facade's, or the `nodetool` shim's): reading a method it lacks throws
// CapabilityError unknown_export naming the module, the name and the closest methods, instead of
// answering undefined (whose call would be a bare TypeError). `then`, `toJSON` and symbols stay
// undefined, so `await ns` and JSON.stringify(ns) behave as on a plain object; `in` is unchanged.
export function guard(module, namespace) {
  return new ProxyCtor(namespace, {
    get(target, key, receiver) {
      if (typeof key === "symbol" || key in target || key === "then" || key === "toJSON") {
        return ReflectGet(target, key, receiver);
      }
      throw new CapabilityError(JSONParse(hostMissing(module, key)));
    },
  });
}
