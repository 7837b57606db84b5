/**
 * `Copy` under an answer of the agent (its text, the Markdown as the model wrote it) or on a code block
 * in it (the code), and `Copy` a value (a node's output, a job's outputs: `Copy`): puts it on the
 * clipboard and says so for a moment, or says that the browser refused.
 */
import { useEffect, useState } from "react";
import { copyableText } from "../panel/ValueView.tsx";

export function CopyButton({ text, label = "Copy the answer" }: { text: string; label?: string }) {
  const [said, setSaid] = useState<string | undefined>();
  useEffect(() => {
    if (said === undefined) return;
    const timer = setTimeout(() => setSaid(undefined), 2000);
    return () => clearTimeout(timer);
  }, [said]);
  return (
    <>
      <button
        type="button"
        className="copy"
        aria-label={label}
        onClick={() =>
          void navigator.clipboard.writeText(text).then(
            () => setSaid("Copied."),
            () => setSaid("The browser did not allow copying."),
          )
        }
      >
        Copy
      </button>
      <span className="hint" role="status">
        {said ?? ""}
      </span>
    </>
  );
}

/** Copies a value as text (copyableText); nothing when there is nothing whole to copy. */
export function Copy({ value, label }: { value: unknown; label: string }) {
  const text = copyableText(value);
  return text === undefined ? null : <CopyButton text={text} label={label} />;
}
