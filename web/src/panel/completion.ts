/**
 * Completion and hover for the `Action` editor, from the generated declarations (action-types.ts):
 * module specifiers inside an import's string, a module's exports inside `import { ... }`, a namespace
 * object's methods after `workflows.` (and `nodetool.`), the argument keys inside `workflows.list({ ... })`,
 * and on hover a capability's call forms and description. Added beside the JavaScript language's own
 * completions, never instead of them.
 */
import type { Completion, CompletionContext, CompletionResult } from "@codemirror/autocomplete";
import { syntaxTree } from "@codemirror/language";
import { EditorState, type Extension } from "@codemirror/state";
import { EditorView, hoverTooltip, type Tooltip } from "@codemirror/view";
import type { SyntaxNode } from "@lezer/common";
import {
  bindingsOf,
  exportOfCallee,
  loadTypesIndex,
  moduleOfObject,
  type TypedExport,
  type TypedModule,
  type TypesIndex,
} from "./action-types.ts";

const WORD = /[\w$]*$/;

function methodOption(entry: TypedExport, label: string): Completion {
  return {
    label,
    type: "method",
    detail: entry.signatures[0]?.slice(entry.signatures[0].indexOf("(")) ?? "",
    info: `${entry.signatures.join("\n")}\n\n${entry.description}`,
  };
}

function exportOptions(module: TypedModule): Completion[] {
  const namespace: Completion = { label: module.name, type: "namespace", info: module.description };
  return [namespace, ...module.exports.map((entry) => methodOption(entry, entry.name))];
}

/** `import x from "@nodetool-ai/sandbox-nodetool/wo|"` or `import("...|")`. */
function specifierCompletion(context: CompletionContext, index: TypesIndex): CompletionResult | null {
  const line = context.state.doc.lineAt(context.pos);
  const before = line.text.slice(0, context.pos - line.from);
  const match = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"']*)$/.exec(before);
  if (!match) return null;
  return {
    from: context.pos - (match[2]?.length ?? 0),
    options: index.modules.map((m) => ({ label: m.specifier, type: "module", info: m.description })),
    validFor: /^[\w@/.-]*$/,
  };
}

/** `import { lis| } from "..."`: the module's exports. */
function namedImportCompletion(context: CompletionContext, index: TypesIndex): CompletionResult | null {
  const text = context.state.doc.toString();
  const head = text.slice(0, context.pos);
  const open = head.lastIndexOf("{");
  const statement = head.lastIndexOf("import");
  if (open < 0 || statement < 0 || statement > open || /[};]/.test(head.slice(open + 1))) return null;
  if (!/^import\s*([\w$]+\s*,\s*)?\{$/.test(text.slice(statement, open + 1).trim())) return null;
  const spec = /^[^}]*\}\s*from\s*(["'])([^"']+)\1/.exec(text.slice(context.pos));
  const module = index.modules.find((m) => m.specifier === spec?.[2]);
  if (!module) return null;
  const word = WORD.exec(head)?.[0] ?? "";
  return { from: context.pos - word.length, options: exportOptions(module), validFor: /^[\w$]*$/ };
}

/** `workflows.|`, `nodetool.|`, `nodetool.memory.|`. */
function memberCompletion(context: CompletionContext, index: TypesIndex): CompletionResult | null {
  const line = context.state.doc.lineAt(context.pos);
  const before = line.text.slice(0, context.pos - line.from);
  const match = /((?:nodetool\.)?[A-Za-z_$][\w$]*)\.([\w$]*)$/.exec(before);
  if (!match?.[1]) return null;
  const from = context.pos - (match[2]?.length ?? 0);
  if (match[1] === "nodetool") {
    const modules = index.modules.filter((m) => m.specifier.includes("/sandbox-nodetool/"));
    return {
      from,
      options: modules.map((m) => ({ label: m.name, type: "namespace", info: m.description })),
      validFor: /^[\w$]*$/,
    };
  }
  const module = moduleOfObject(match[1], bindingsOf(context.state.doc.toString(), index), index);
  if (!module) return null;
  return {
    from,
    options: module.exports.map((entry) => methodOption(entry, entry.method)),
    validFor: /^[\w$]*$/,
  };
}

/** The object literal a position is a key of, when it is a capability call's argument. */
function argumentObject(state: EditorState, pos: number): { call: SyntaxNode; object: SyntaxNode } | undefined {
  for (let node: SyntaxNode | null = syntaxTree(state).resolveInner(pos, -1); node; node = node.parent) {
    if (node.name !== "ObjectExpression") continue;
    const args = node.parent;
    const call = args?.parent;
    if (args?.name === "ArgList" && call?.name === "CallExpression") return { call, object: node };
    return undefined;
  }
  return undefined;
}

/** `workflows.list({ li| })`: the argument keys not given yet. */
function argumentCompletion(context: CompletionContext, index: TypesIndex): CompletionResult | null {
  const { state, pos } = context;
  const found = argumentObject(state, pos);
  if (!found) return null;
  const before = state.sliceDoc(found.object.from, pos);
  const key = /[{,]\s*([\w$]*)$/.exec(before);
  if (!key) return null;
  const calleeNode = found.call.firstChild;
  if (!calleeNode) return null;
  const text = state.doc.toString();
  const entry = exportOfCallee(state.sliceDoc(calleeNode.from, calleeNode.to), bindingsOf(text, index), index);
  if (!entry) return null;
  const given = new Set(
    [...state.sliceDoc(found.object.from, found.object.to).matchAll(/[{,]\s*([\w$]+)\s*:/g)].map((m) => m[1]),
  );
  return {
    from: pos - (key[1]?.length ?? 0),
    options: entry.args
      .filter((arg) => !given.has(arg.key))
      .map((arg) => ({
        label: arg.key,
        type: "property",
        detail: `${arg.optional ? "?" : ""}: ${arg.type}`,
        info: arg.doc || undefined,
        boost: arg.optional ? 0 : 1,
      })),
    validFor: /^[\w$]*$/,
  };
}

async function complete(context: CompletionContext): Promise<CompletionResult | null> {
  const index = await loadTypesIndex();
  if (!index) return null;
  return (
    specifierCompletion(context, index) ??
    namedImportCompletion(context, index) ??
    argumentCompletion(context, index) ??
    memberCompletion(context, index)
  );
}

function hoverContent(entry: TypedExport): HTMLElement {
  const box = document.createElement("div");
  box.className = "cm-capability-hover";
  const signatures = document.createElement("pre");
  signatures.textContent = entry.signatures.join("\n");
  const description = document.createElement("p");
  description.textContent = entry.description;
  box.append(signatures, description);
  if (entry.args.length > 0) {
    const args = document.createElement("ul");
    for (const arg of entry.args) {
      const item = document.createElement("li");
      item.textContent = `${arg.key}${arg.optional ? "?" : ""}: ${arg.type}${arg.doc ? ` (${arg.doc.replace(/\n/g, "; ")})` : ""}`;
      args.append(item);
    }
    box.append(args);
  }
  return box;
}

/** The capability named at a position: `list` in `workflows.list`, or an imported wire name. */
async function hover(view: EditorView, pos: number, side: -1 | 1): Promise<Tooltip | null> {
  const line = view.state.doc.lineAt(pos);
  const offset = pos - line.from;
  const start = offset - (WORD.exec(line.text.slice(0, offset))?.[0].length ?? 0);
  const end = offset + (/^[\w$]*/.exec(line.text.slice(offset))?.[0].length ?? 0);
  if (start === end || (side < 0 && offset === start) || (side > 0 && offset === end)) return null;
  const index = await loadTypesIndex();
  if (!index) return null;
  const object = /((?:nodetool\.)?[A-Za-z_$][\w$]*)\.$/.exec(line.text.slice(0, start))?.[1];
  const callee = `${object ? `${object}.` : ""}${line.text.slice(start, end)}`;
  const entry = exportOfCallee(callee, bindingsOf(view.state.doc.toString(), index), index);
  if (!entry) return null;
  return { pos: line.from + start, end: line.from + end, above: true, create: () => ({ dom: hoverContent(entry) }) };
}

/** Completion and hover from the declarations; the data is fetched when the editor is first focused. */
export function actionTypes(): Extension {
  return [
    EditorState.languageData.of(() => [{ autocomplete: complete }]),
    hoverTooltip(hover, { hoverTime: 300 }),
    EditorView.domEventHandlers({
      focus: () => {
        void loadTypesIndex();
      },
    }),
  ];
}
