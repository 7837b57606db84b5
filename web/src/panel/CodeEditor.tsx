/** The `Action` code editor: CodeMirror 6, labelled for assistive tech, Ctrl/Cmd+Enter runs. Tab leaves. */
import { javascript } from "@codemirror/lang-javascript";
import { keymap } from "@codemirror/view";
import { basicSetup, EditorView } from "codemirror";
import { useEffect, useRef } from "react";

export interface CodeEditorProps {
  value: string;
  onChange(value: string): void;
  onRun(): void;
}

export function CodeEditor({ value, onChange, onRun }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const handlers = useRef({ onChange, onRun });
  handlers.current = { onChange, onRun };

  // The editor is created once; later `value` changes are pushed in by the effect below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: created once on mount
  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      doc: value,
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
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div className="code-editor" ref={host} />;
}
