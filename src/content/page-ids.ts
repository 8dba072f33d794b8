import { joinFile, setIdLine, withYaml } from "./frontmatter.ts";
import type { PageFile } from "./page-file.ts";

/**
 * Gives a file its page id: replaces an existing `id:` line or inserts one as the first line of
 * the frontmatter; a file without frontmatter gets a new block holding only the id. Every other
 * byte of the file stays as it was.
 */
export function injectId(file: PageFile, id: string): string {
  const { split } = file;
  if (split.block === "") {
    return joinFile({ bom: split.bom, block: `---\nid: ${id}\n---\n`, gap: "\n", body: split.body });
  }
  return joinFile(withYaml(split, setIdLine(split.yaml, id, split.newline)));
}
