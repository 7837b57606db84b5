/** Executors of the constant and text families. */
import { type Executor, NodeError } from "../types.ts";
import { fillTemplate } from "../values.ts";

const str = (value: unknown) => value as string;

const constant: Executor = (inputs) => ({ output: inputs.value });

export const textExecutors: Record<string, Executor> = {
  "constant.string": constant,
  "constant.number": constant,
  "constant.boolean": constant,
  "constant.json": constant,

  "text.template": (inputs) => ({
    output: fillTemplate(
      str(inputs.template),
      (name) => (Object.hasOwn(inputs, name) ? inputs[name] : undefined),
      "text.template",
    ),
  }),
  "text.concat": (inputs) => ({ output: str(inputs.a) + str(inputs.separator) + str(inputs.b) }),
  "text.split": (inputs) => {
    const parts = str(inputs.text).split(str(inputs.separator));
    return { output: inputs.trim ? parts.map((p) => p.trim()).filter((p) => p !== "") : parts };
  },
  "text.replace": (inputs) => {
    const search = str(inputs.search);
    if (search === "") throw new NodeError("text.replace: search is empty; give the text to find.");
    const text = str(inputs.text);
    const replacement = str(inputs.replacement);
    // split/join, not String.replace: `$&` and friends in the replacement stay literal.
    return {
      output: inputs.all
        ? text.split(search).join(replacement)
        : text.includes(search)
          ? text.slice(0, text.indexOf(search)) + replacement + text.slice(text.indexOf(search) + search.length)
          : text,
    };
  },
  "text.length": (inputs) => ({ output: [...str(inputs.text)].length }),
};
