import type { FrontmatterData } from "./frontmatter.ts";
import type { PageFile } from "./page-file.ts";

/** A reason a page's file cannot be taken at face value; the page still loads (docs/architecture.md §5). */
export interface PageProblem {
  kind: "invalid_yaml";
  message: string;
}

/**
 * Frontmatter is a handful of keys; past this many values (counted as they would be written out,
 * every alias expanded) it is an alias bomb, not metadata.
 */
const MAX_FRONTMATTER_VALUES = 10_000;

/**
 * The page's problems and the frontmatter safe to show with it. Bun's YAML parser refuses the
 * largest alias bombs ("Excessive aliasing") but hands back smaller ones as a shared graph: seven
 * levels of nine-fold aliases parse in milliseconds and serialize to ~33 MB of JSON on every read.
 * Such frontmatter is reported as invalid and left out of the page object.
 */
export function pageProblems(file: PageFile): { problems: PageProblem[]; frontmatter: FrontmatterData } {
  if (file.yamlError !== null) {
    return {
      problems: [{ kind: "invalid_yaml", message: `invalid frontmatter (${file.yamlError}); its keys are ignored until the file is fixed` }],
      frontmatter: file.data,
    };
  }
  if (!withinValues(file.data, MAX_FRONTMATTER_VALUES)) {
    return {
      problems: [
        {
          kind: "invalid_yaml",
          message: `invalid frontmatter (excessive aliasing: more than ${MAX_FRONTMATTER_VALUES} values once aliases are expanded); its keys are not shown`,
        },
      ],
      frontmatter: {},
    };
  }
  return { problems: [], frontmatter: file.data };
}

/** True when writing `value` out visits at most `limit` values; stops counting as soon as it passes. */
function withinValues(value: unknown, limit: number): boolean {
  let left = limit;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (--left < 0) return false;
    if (v === null || typeof v !== "object" || v instanceof Date) continue;
    const items = Array.isArray(v) ? v : Object.values(v);
    if (items.length > left) return false; // every item would count: no need to queue them
    for (const item of items) stack.push(item);
  }
  return true;
}
