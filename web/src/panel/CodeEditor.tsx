/**
 * The `Action` code editor: CodeMirror 6, labelled for assistive tech, Ctrl/Cmd+Enter runs. Tab leaves.
 * It completes and explains capabilities from the generated declarations (completion.ts), and shows the
 * problems of a type check at their place (`checked`: the problems found in exactly that text; a check of
 * older text is not shown, since its positions would be wrong).
 */
import { javascript } from "@codemirror/lang-javascript";
import { type Diagnostic, setDiagnostics } from "@codemirror/lint";
import { keymap } from "@codemirror/view";
import { basicSetup, EditorView } from "codemirror";
import { useEffect, useRef } from "react";
import { actionTypes } from "./completion.ts";
import type { TypeProblem } from "./typecheck-protocol.ts";

export interface CheckedText {
  code: string;
  problems: readonly TypeProblem[];
}

export interface CodeEditorProps {
  /**
   * The code to show: each new object replaces the editor's text (a restore of the same code too);
   * `focus` puts the cursor in it (the person chose this code elsewhere and comes here to edit it).
   */
  source: { code: string; focus?: boolean };
  onChange(value: string): void;
  onRun(): void;
  checked?: CheckedText | undefined;
}

function diagnostics(problems: readonly TypeProblem[], length: number): Diagnostic[] {
  return problems.map((problem) => {
    const from = Math.min(problem.from, length);
    return {
      from,
      to: Math.min(Math.max(problem.to, from), length),
      severity: problem.severity,
      message: `line ${problem.line}, column ${problem.column}: ${problem.message}`,
    };
  });
}

export function CodeEditor({ source, onChange, onRun, checked }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const handlers = useRef({ onChange, onRun });
  handlers.current = { onChange, onRun };

  // The editor is created once; later sources are pushed in by the effect below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: created once on mount
  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      doc: source.code,
      parent: host.current,
      extensions: [
        keymap.of([
          {
            key: "Mod-Enter",
            run: () => {
              handlers.current.onRun();
              return true;
            },
          },
        ]),
        basicSetup,
        javascript(),
        actionTypes(),
        // The panel is narrow: long lines wrap rather than hide their ends behind a sideways scroll.
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": "Action", spellcheck: "false" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) handlers.current.onChange(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== source.code) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: source.code } });
    }
    if (editor && source.focus) editor.focus();
  }, [source]);

  useEffect(() => {
    const editor = view.current;
    if (!editor || !checked || editor.state.doc.toString() !== checked.code) return;
    editor.dispatch(setDiagnostics(editor.state, diagnostics(checked.problems, editor.state.doc.length)));
  }, [checked]);

  return <div className="code-editor" ref={host} />;
}
