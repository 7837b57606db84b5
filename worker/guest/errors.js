// The error a failed capability call throws in the guest: a plain copy of the failure payload
// ({code, message, capability, issues}), never a host object or a host stack.
import { ArrayIsArray, append, defineField, ErrorCtor, StringCtor } from "nodetool:intrinsics";

function strings(list) {
  const out = [];
  for (let i = 0; i < list.length; i++) append(out, StringCtor(list[i]));
  return out;
}

export class CapabilityError extends ErrorCtor {
  constructor(payload) {
    const p = payload && typeof payload === "object" ? payload : {};
    super(typeof p.message === "string" ? p.message : "capability call failed");
    defineField(this, "name", "CapabilityError");
    defineField(this, "code", typeof p.code === "string" ? p.code : "capability_failed");
    if (typeof p.capability === "string") defineField(this, "capability", p.capability);
    if (ArrayIsArray(p.issues)) defineField(this, "issues", strings(p.issues));
    if (ArrayIsArray(p.suggestions)) defineField(this, "suggestions", strings(p.suggestions));
  }
}
