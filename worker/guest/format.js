// How console arguments become one log line: strings as they are, errors as `Name: message`, other
// values as JSON (BigInt as `12n`), cut at LINE_MAX with a visible marker. Loaded by the first console
// call (setup asks the host's `load`), not on every action start.

const LINE_MAX = 4000;

function show(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    const text = JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? `${v}n` : v));
    return text === undefined ? String(value) : text;
  } catch {
    try {
      return String(value);
    } catch {
      return "[unprintable]";
    }
  }
}

export function formatLine(args) {
  const line = args.map(show).join(" ");
  return line.length > LINE_MAX ? `${line.slice(0, LINE_MAX)}... [line truncated]` : line;
}
