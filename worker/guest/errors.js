// The error a failed capability call throws in the guest: a plain copy of the failure payload
// ({code, message, capability, issues}), never a host object or a host stack.

export class CapabilityError extends Error {
  constructor(payload) {
    const p = payload && typeof payload === "object" ? payload : {};
    super(typeof p.message === "string" ? p.message : "capability call failed");
    this.name = "CapabilityError";
    this.code = typeof p.code === "string" ? p.code : "capability_failed";
    if (typeof p.capability === "string") this.capability = p.capability;
    if (Array.isArray(p.issues)) this.issues = p.issues.map(String);
    if (Array.isArray(p.suggestions)) this.suggestions = p.suggestions.map(String);
  }
}
