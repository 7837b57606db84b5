/**
 * The model's text, rendered as the Markdown it is written in (GFM: lists, tables, code, emphasis,
 * links), as chat panels do. The text is the model's, so it may carry what an injected instruction
 * wrote: raw HTML is never rendered (react-markdown shows none of it), links open in a new tab with no
 * referrer and no access to this page, only http(s) and mailto links are links, and an image is never
 * fetched (a URL the model wrote can carry data out): it shows as a link the person may open.
 * Its own chunk (the parser is a sixth of the page's script), loaded by Markdown.tsx.
 */
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

const SAFE_URL = /^(https?:|mailto:)/i;

function safeHref(url: string | undefined): string | undefined {
  return url && SAFE_URL.test(url.trim()) ? url : undefined;
}

const components: Components = {
  a: ({ href, children }) => {
    const safe = safeHref(href);
    return safe ? (
      <a href={safe} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    );
  },
  img: ({ src, alt }) => {
    const safe = typeof src === "string" ? safeHref(src) : undefined;
    const label = `image: ${alt || src || "untitled"}`;
    return safe ? (
      <a href={safe} target="_blank" rel="noopener noreferrer nofollow">
        {label}
      </a>
    ) : (
      <span>{label}</span>
    );
  },
};

export default function MarkdownView({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
      {text}
    </ReactMarkdown>
  );
}
