/**
 * Search snippets arrive as escaped HTML whose only markup is <mark>. They are never handed to
 * innerHTML: the text is split on the mark tags and every other character is rendered as text.
 */
import type { ReactNode } from "react";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'", "#x27": "'", "#34": '"' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    const known = ENTITIES[name.toLowerCase()];
    if (known !== undefined) return known;
    if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(parseInt(name.slice(2), 16) || 0xfffd);
    if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10) || 0xfffd);
    return whole;
  });
}

export function Snippet({ html }: { html: string }): ReactNode {
  const parts = html.split(/(<mark>|<\/mark>)/);
  const out: ReactNode[] = [];
  let marked = false;
  parts.forEach((part, i) => {
    if (part === "<mark>") marked = true;
    else if (part === "</mark>") marked = false;
    else if (part) out.push(marked ? <mark key={i}>{decodeEntities(part)}</mark> : decodeEntities(part));
  });
  return <>{out}</>;
}
