// How console arguments become one log line: strings as they are, errors as `Name: message`, other
// values as JSON (BigInt as `12n`), cut at LINE_MAX with a visible marker. Loaded by the first console
// call (setup asks the host's `load`), not on every action start. Builtins come from intrinsics.js.
import { ErrorCtor, isInstanceOf, JSONStringify, StringCtor, StringPrototypeSlice } from "nodetool:intrinsics";

const LINE_MAX = 4000;

function show(value) {
  if (typeof value === "string") return value;
  if (isInstanceOf(value, ErrorCtor)) return `${StringCtor(value.name)}: ${StringCtor(value.message)}`;
  try {
    const text = JSONStringify(value, (_key, v) => (typeof v === "bigint" ? `${v}n` : v));
    return text === undefined ? StringCtor(value) : text;
  } catch {
    try {
      return StringCtor(value);
    } catch {
      return "[unprintable]";
    }
  }
}

export function formatLine(args) {
  let line = "";
  for (let i = 0; i < args.length; i++) line += (i === 0 ? "" : " ") + show(args[i]);
  return line.length > LINE_MAX ? `${StringPrototypeSlice(line, 0, LINE_MAX)}... [line truncated]` : line;
}
