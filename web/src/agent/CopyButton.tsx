/**
 * `Copy` under an answer of the agent: puts its text (the Markdown as the model wrote it) on the
 * clipboard and says so for a moment, or says that the browser refused.
 */
import { useEffect, useState } from "react";

export function CopyButton({ text }: { text: string }) {
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
        aria-label="Copy the answer"
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
