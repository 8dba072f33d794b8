/**
 * A generated documentation corpus for the export benchmark: `count` Markdown pages with
 * frontmatter, headings, a code block, a table, a list and links to other pages, spread over
 * folders of 50 pages, plus a root index.md. Deterministic (same count → same bytes), so every
 * tool builds exactly the same input.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const WORDS =
  "the page explains how a team writes documentation together and keeps it close to the code so that every change is reviewed published and searchable by readers who need it".split(" ");

function sentence(seed: number, length: number): string {
  const out: string[] = [];
  for (let i = 0; i < length; i++) out.push(WORDS[(seed * 31 + i * 7) % WORDS.length]!);
  const s = out.join(" ");
  return s.charAt(0).toUpperCase() + s.slice(1) + ".";
}

export function pagePath(i: number): string {
  return `section-${String(Math.floor(i / 50)).padStart(3, "0")}/page-${String(i).padStart(5, "0")}.md`;
}

export function pageText(i: number, count: number, opts: { frontmatterExtra?: string } = {}): string {
  const next = (i + 1) % count;
  const far = (i * 37 + 11) % count;
  const rel = (target: number) => {
    const from = pagePath(i).split("/")[0];
    const [folder, file] = pagePath(target).split("/");
    return folder === from ? file! : `../${folder}/${file}`;
  };
  return `---
title: "Page ${i}: ${WORDS[i % WORDS.length]} and ${WORDS[(i + 3) % WORDS.length]}"
description: "${sentence(i, 12)}"
publish: true
${opts.frontmatterExtra ?? ""}---

## Overview

${sentence(i, 24)} ${sentence(i + 1, 18)} See [the next page](${rel(next)}) and [another one](${rel(far)}#usage).

## Usage

${sentence(i + 2, 20)}

\`\`\`ts
export function handler${i}(input: string): number {
  // ${sentence(i + 3, 6)}
  return input.length * ${i};
}
\`\`\`

| option | default | meaning |
|---|---|---|
| \`limit\` | ${i % 100} | ${sentence(i + 4, 6)} |
| \`mode\` | fast | ${sentence(i + 5, 6)} |

### Details

- ${sentence(i + 6, 8)}
- ${sentence(i + 7, 8)}
- ${sentence(i + 8, 8)}

${sentence(i + 9, 30)}
`;
}

/** Writes the corpus under `dir`; `root` names the root page's file (Hugo wants `_index.md`). */
export function writeCorpus(dir: string, count: number, opts: { root?: string; frontmatterExtra?: string } = {}): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const path = join(dir, pagePath(i));
    if (i % 50 === 0) mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, pageText(i, count, opts));
  }
  const links = Array.from({ length: Math.min(count, 20) }, (_, i) => `- [Page ${i}](${pagePath(i)})`).join("\n");
  writeFileSync(join(dir, opts.root ?? "index.md"), `---\ntitle: Home\ndescription: The generated documentation corpus.\npublish: true\n---\n\n## Start here\n\n${links}\n`);
}
