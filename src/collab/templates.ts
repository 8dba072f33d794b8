import type { z } from "zod";
import { NotFoundError } from "../core/errors.ts";
import type { templateOutput, templateSummaryOutput } from "./schemas.ts";
import { parseYaml, splitFile } from "../content/frontmatter.ts";
import howToGuide from "../../assets/templates/how-to-guide.md" with { type: "text" };
import apiReference from "../../assets/templates/api-reference.md" with { type: "text" };
import tutorial from "../../assets/templates/tutorial.md" with { type: "text" };
import adr from "../../assets/templates/architecture-decision-record.md" with { type: "text" };
import runbook from "../../assets/templates/runbook.md" with { type: "text" };
import meetingNotes from "../../assets/templates/meeting-notes.md" with { type: "text" };

/** Imported as text so `bun build --compile` carries them inside the binary. */
const SOURCES: Record<string, string> = {
  "how-to-guide": howToGuide,
  "api-reference": apiReference,
  tutorial,
  "architecture-decision-record": adr,
  runbook,
  "meeting-notes": meetingNotes,
};

/** A template as listed, and with its content: the documented output schemas' types. */
type TemplateSummary = z.infer<typeof templateSummaryOutput>;
type Template = z.infer<typeof templateOutput>;

/**
 * Built-in page templates. Each file's own frontmatter holds the template's name and
 * description; the rest of the file is the page body a new page starts from.
 */
export class Templates {
  private readonly all: Template[];

  constructor(sources: Record<string, string> = SOURCES) {
    this.all = Object.entries(sources).map(([id, text]) => {
      // The ledger's frontmatter reader (Bun's YAML parser): no second YAML library in memory.
      const split = splitFile(text);
      const data = parseYaml(split.yaml) as { name?: unknown; description?: unknown };
      return {
        id,
        name: typeof data.name === "string" ? data.name : id,
        description: typeof data.description === "string" ? data.description : "",
        content: split.body.replace(/^\n+/, ""),
      };
    });
  }

  list(): { items: TemplateSummary[]; next_cursor: null } {
    return { items: this.all.map(({ id, name, description }) => ({ id, name, description })), next_cursor: null };
  }

  get(id: string): Template {
    const found = this.all.find((t) => t.id === id);
    if (!found) throw new NotFoundError("Template not found");
    return found;
  }
}
