/** Executors of the json and list families. */
import { type Executor, NodeError } from "../types.ts";
import { fillTemplate, getPath, isMissing, parsePath, setPath, textOf } from "../values.ts";

const list = (value: unknown) => value as unknown[];
const str = (value: unknown) => value as string;

/** Largest text json.stringify produces: a node's output lands in the job record. */
const MAX_TEXT = 5 * 1024 * 1024;

export const jsonExecutors: Record<string, Executor> = {
  "json.parse": (inputs) => {
    try {
      return { output: JSON.parse(str(inputs.text)) as unknown };
    } catch (err) {
      const why = err instanceof SyntaxError ? err.message : "not JSON";
      throw new NodeError(`json.parse: the text is not valid JSON (${why.slice(0, 200)}).`);
    }
  },
  "json.stringify": (inputs) => {
    const text = JSON.stringify(inputs.value, null, inputs.indent as number);
    if (text === undefined) throw new NodeError("json.stringify: the value has no JSON form.");
    if (text.length > MAX_TEXT)
      throw new NodeError("json.stringify: the JSON text is larger than 5 MiB.", "result_too_large");
    return { output: text };
  },
  "json.get": (inputs) => {
    const path = str(inputs.path);
    const found = getPath(inputs.object, parsePath(path));
    if (!isMissing(found)) return { output: found };
    if (inputs.default !== undefined) return { output: inputs.default };
    throw new NodeError(`json.get: nothing at path "${path}". Check the path against the value, or set a default.`);
  },
  "json.set": (inputs) => {
    const path = str(inputs.path);
    const segments = parsePath(path);
    if (segments.length === 0) throw new NodeError("json.set: path is empty; name where to put the value, e.g. a.b.");
    return { output: setPath(inputs.object, segments, inputs.value, path) };
  },

  "list.length": (inputs) => ({ output: list(inputs.list).length }),
  "list.join": (inputs) => ({ output: list(inputs.list).map(textOf).join(str(inputs.separator)) }),
  "list.slice": (inputs) => {
    const items = list(inputs.list);
    const end = inputs.end === undefined || inputs.end === null ? items.length : Math.trunc(inputs.end as number);
    return { output: items.slice(Math.trunc(inputs.start as number), end) };
  },
  "list.map_template": (inputs) => {
    const template = str(inputs.template);
    return {
      output: list(inputs.list).map((item, index) =>
        fillTemplate(
          template,
          (name) => (name === "item" ? item : name === "index" ? index : undefined),
          `list.map_template, item ${index}`,
          () => "Only {{item}}, {{item.<path>}} and {{index}} are filled here.",
        ),
      ),
    };
  },
};
