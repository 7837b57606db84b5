// An uncaught error as the host reads it: JSON text of its name, message, code and position, never
// more (no stack, no other property). Loaded by setup's `describe` when an action first fails.
import {
  defineField,
  ErrorCtor,
  isInstanceOf,
  JSONStringify,
  NumberCtor,
  ObjectCreate,
  RegExpPrototypeExec,
  StringCtor,
} from "nodetool:intrinsics";

const POSITION = /action\.js:(\d+):(\d+)/;

// A null-prototype object: JSON.stringify finds no toJSON the action may have put on Object.prototype.
export function describe(error) {
  const out = ObjectCreate(null);
  defineField(out, "name", "Error");
  defineField(out, "message", "");
  try {
    if (isInstanceOf(error, ErrorCtor) || (error && typeof error === "object")) {
      defineField(out, "name", StringCtor(error.name ?? "Error"));
      defineField(out, "message", StringCtor(error.message ?? ""));
      if (typeof error.code === "string") defineField(out, "code", error.code);
      const at = RegExpPrototypeExec(POSITION, StringCtor(error.stack ?? ""));
      if (at) {
        defineField(out, "line", NumberCtor(at[1]));
        defineField(out, "column", NumberCtor(at[2]));
      }
    } else {
      defineField(out, "message", StringCtor(error));
    }
  } catch {
    defineField(out, "message", "(the thrown value could not be described)");
  }
  return JSONStringify(out);
}
