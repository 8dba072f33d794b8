import type { EffectiveRole } from "../../workspaces/roles.ts";
import { AppError } from "../../core/errors.ts";
import { checkEntries, findDuplicateKey, findWidening, MAX_RULES, normalizeWho, ruleKey, type AccessEntry, type RuleSet } from "./rules.ts";

/**
 * `.quire/access.yaml`, the rules as they travel with git (docs/decisions/restricted-folders.md):
 *
 *   restricted:
 *     hr/:
 *       - { who: ana@example.com, level: edit }
 *     guides/launch-plan.md:
 *       - { who: group:editors, level: view }
 *
 * Quire writes the whole file from its rules (it is Quire's own manifest, sorted by path, so the
 * same rules give the same bytes and a review shows only what changed).
 */
export const ACCESS_FILE = ".quire/access.yaml";

const PLAIN = /^[A-Za-z0-9_@+:][A-Za-z0-9_@+.:/ -]*$/;
const scalar = (value: string): string => (PLAIN.test(value) && !value.endsWith(" ") && !value.includes(": ") ? value : JSON.stringify(value));

export function serializeRules(rules: RuleSet): string {
  const keys = [...rules.keys()].sort();
  const head = "# Restricted folders and pages: who may see them, and at what level (view, comment, edit).\n";
  if (keys.length === 0) return `${head}restricted: {}\n`;
  let out = `${head}restricted:\n`;
  for (const key of keys) {
    out += `  ${scalar(key)}:\n`;
    for (const e of rules.get(key)!) out += `    - { who: ${scalar(e.who)}, level: ${e.level} }\n`;
  }
  return out;
}

/**
 * Reads a file's text into rules, checked as strictly as the API's input: YAML that parses, the
 * shape above, valid keys and entries, no duplicate, no widening rule. `current` is the last valid
 * rule set: a member removed since may keep an entry the file already had. Returns the rules or
 * the reason the file is refused.
 */
export function parseRulesFile(
  text: string,
  members: ReadonlyMap<string, EffectiveRole>,
  current: RuleSet,
  /** A first reading with no rules yet (a clone, a rebuild): people not yet members are kept, granting nothing until they join. */
  acceptUnknown = false,
): { rules: RuleSet } | { problem: string } {
  let data: unknown;
  try {
    data = text.trim() === "" ? {} : Bun.YAML.parse(text);
  } catch (error) {
    return { problem: `not valid YAML (${(error as Error).message})` };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { problem: "expected a map with the key `restricted`" };
  const extra = Object.keys(data).filter((k) => k !== "restricted");
  if (extra.length > 0) return { problem: `unknown key ${extra[0]} (only \`restricted\`)` };
  const restricted = (data as { restricted?: unknown }).restricted ?? {};
  if (typeof restricted !== "object" || restricted === null || Array.isArray(restricted)) return { problem: "`restricted` must map paths to access lists" };
  const entries = Object.entries(restricted);
  if (entries.length > MAX_RULES) return { problem: `at most ${MAX_RULES} restricted paths` };
  const rules: RuleSet = new Map();
  try {
    for (const [rawKey, list] of entries) {
      const key = ruleKey(rawKey, rawKey);
      if (!Array.isArray(list)) return { problem: `${rawKey}: expected a list of { who, level }` };
      const shaped = list.map((e) => (typeof e === "object" && e !== null ? e : {})) as Array<{ who?: unknown; level?: unknown }>;
      if (shaped.some((e) => typeof e.who !== "string" || typeof e.level !== "string")) return { problem: `${rawKey}: each entry needs a \`who\` and a \`level\`` };
      if (list.length === 0) continue; // an empty list restricts nothing, as through the API
      const raw = shaped as Array<{ who: string; level: string }>;
      const known = acceptUnknown ? raw.map((e) => ({ who: normalizeWho(e.who), level: "view" as const })) : current.get(key);
      const checked: AccessEntry[] = checkEntries(raw, members, known);
      rules.set(key, checked);
    }
  } catch (error) {
    if (error instanceof AppError) return { problem: error.message };
    throw error;
  }
  const problem = findDuplicateKey(rules) ?? findWidening(rules, members);
  return problem ? { problem } : { rules };
}
