/**
 * The model's text as Markdown (MarkdownView.tsx). The renderer is its own chunk, loaded when the
 * conversation first shows (`loadMarkdown`); until it is there, the text shows as it is.
 */
import { lazy, memo, Suspense } from "react";

export const loadMarkdown = () => import("./MarkdownView.tsx");
const MarkdownView = lazy(loadMarkdown);

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Suspense fallback={<p>{text}</p>}>
        <MarkdownView text={text} />
      </Suspense>
    </div>
  );
});
