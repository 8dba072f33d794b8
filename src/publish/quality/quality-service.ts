import { existsSync, readFileSync } from "node:fs";
import type { Restrictions } from "../../access/restrictions/restrictions-service.ts";
import { OPEN, type PageVisibility } from "../../access/restrictions/visibility.ts";
import { NotFoundError } from "../../core/errors.ts";
import { isUlid } from "../../core/ids.ts";
import { parseInput } from "../../core/validate.ts";
import type { Principal } from "../../core/principal.ts";
import type { Permissions } from "../../access/permissions.ts";
import type { ContentLedger } from "../../content/ledger.ts";
import { hashOf } from "../../content/page-file.ts";
import { normalizePagePath } from "../../content/paths.ts";
import { resolveWikiTarget } from "../../content/links.ts";
import type { z } from "zod";
import { qualityQuery, type qualityReportOutput } from "../schemas.ts";
import { analyzePage, anchorSlug, type Finding, type PageAnalysis, type PageLink, type Severity } from "./page-analysis.ts";

/**
 * The quality scan of docs/architecture.md §9: what is broken or weak in a workspace's pages, before readers
 * find it. Each page is analysed on its own (cached by path and content hash, so a re-scan reads
 * the files and re-analyses only those that changed); what needs the whole workspace — dead links,
 * missing headings in other pages, pages nothing links to — is decided from those analyses on each
 * scan, which is cheap.
 *
 * Scores: a page starts at 100 and loses 20 per error, 8 per warning and 2 per info finding (never
 * below 0); the workspace's score is the mean of its pages' scores (100 with no pages).
 */
interface QualityPage {
  path: string;
  score: number;
  findings: Finding[];
}

interface QualityReport {
  score: number;
  pages: QualityPage[];
  findings: Finding[];
}

interface DeadLink {
  path: string;
  line: number;
  target: string;
}

const PENALTY: Record<Severity, number> = { error: 20, warning: 8, info: 2 };

interface Scanned {
  report: QualityReport;
  deadLinks: DeadLink[];
}

export class QualityService {
  /** Per workspace: `path\0hash` → analysis. Replaced after each scan, so it holds only live pages. */
  private readonly cache = new Map<string, Map<string, PageAnalysis>>();

  constructor(
    private readonly deps: {
      permissions: Permissions;
      restrictions: Restrictions;
      ledger: ContentLedger;
      /** Base paths of the workspace's named versions (a link from one into another is reported). */
      versionBases?: (workspaceId: string) => string[];
    },
  ) {}

  /** The scan for a caller who can read the workspace (404 otherwise); `path` narrows it to one page. */
  scan(principal: Principal, workspaceRef: string, input: unknown = {}): QualityReport {
    const { workspaceId, path, visibility } = this.resolve(principal, workspaceRef, input);
    return this.scanWorkspace(workspaceId, path, visibility).report;
  }

  /** quire_validate_links: every dead link (with its line and target as written), optionally of one page. */
  deadLinks(principal: Principal, workspaceRef: string, input: unknown = {}): { dead_links: DeadLink[] } {
    const { workspaceId, path, visibility } = this.resolve(principal, workspaceRef, input);
    return { dead_links: this.scanWorkspace(workspaceId, path, visibility).deadLinks };
  }

  private resolve(principal: Principal, workspaceRef: string, input: unknown): { workspaceId: string; path: string | null; visibility: PageVisibility } {
    const query = parseInput(qualityQuery, input);
    const ref = isUlid(workspaceRef) ? { id: workspaceRef } : { slug: workspaceRef };
    const { workspace, role } = this.deps.permissions.require(principal, ref, "viewer");
    const visibility = this.deps.restrictions.visibilityOf(principal, workspace, role);
    let path: string | null = null;
    if (query.path !== undefined) {
      path = normalizePagePath(query.path);
      // One lookup either way, and no record built for a hidden page (page-records.ts liveIf).
      if (!this.deps.ledger.records.liveIf(workspace.id, path, visibility.sees(path))) throw new NotFoundError("Page not found");
    }
    return { workspaceId: workspace.id, path, visibility };
  }

  /** The scan itself, without a permission check (the export and benchmarks call it directly). */
  /**
   * `visibility`: a reader with restricted folders hidden from them is scanned as if those pages did
   * not exist, so a link to one is dead as a link to nothing, and no finding tells of its headings.
   */
  scanWorkspace(workspaceId: string, only: string | null = null, visibility: PageVisibility = OPEN): Scanned {
    const { ledger } = this.deps;
    const dir = ledger.dir(workspaceId);
    const all = ledger.records.liveIn(workspaceId);
    const rows = visibility.restricted ? all.filter((r) => visibility.sees(r.path)) : all;
    const previous = this.cache.get(workspaceId) ?? new Map<string, PageAnalysis>();
    const next = new Map<string, PageAnalysis>();
    const analyses = new Map<string, PageAnalysis>();
    for (const row of rows) {
      let text: string;
      try {
        text = readFileSync(dir.resolveInside(row.path), "utf8");
      } catch {
        continue; // gone since the record was read: the reconciler will catch up
      }
      const key = `${row.path}\0${hashOf(text)}`;
      let analysis = previous.get(key);
      if (!analysis) analysis = analyzePage(row.path, text);
      next.set(key, analysis);
      analyses.set(row.path, analysis);
    }
    // A partial scan keeps what it did not read (the next full scan drops the pages gone).
    if (visibility.restricted) for (const [key, analysis] of next) previous.set(key, analysis);
    this.cache.set(workspaceId, visibility.restricted ? previous : next);

    const pages = new Set(analyses.keys());
    const anchorSets = new Map<string, Set<string>>();
    const anchorsOf = (p: string) => {
      let set = anchorSets.get(p);
      if (!set) anchorSets.set(p, (set = new Set(analyses.get(p)?.anchors ?? [])));
      return set;
    };
    const bases = (this.deps.versionBases?.(workspaceId) ?? []).map((b) => b.replace(/^\/+|\/+$/g, "")).filter(Boolean);
    const versionOf = (p: string) => bases.filter((b) => p.startsWith(b + "/")).sort((a, b) => b.length - a.length)[0] ?? null;
    const fileExists = (p: string) => {
      if (p === "") return true;
      try {
        return existsSync(dir.resolveInside(p));
      } catch {
        return false;
      }
    };

    const inbound = new Set<string>();
    const byPage = new Map<string, Finding[]>();
    const deadLinks: DeadLink[] = [];
    for (const [path, analysis] of analyses) {
      const findings = [...analysis.findings];
      for (const link of analysis.links) {
        const problem = this.checkLink(path, link, pages, anchorsOf, fileExists, versionOf, inbound);
        if (problem) {
          findings.push({ path, kind: "dead_link", severity: "error", message: problem, line: link.line });
          deadLinks.push({ path, line: link.line, target: link.raw });
        }
      }
      byPage.set(path, findings);
    }
    for (const [path, findings] of byPage) {
      if (path !== "index.md" && !inbound.has(path)) {
        findings.push({ path, kind: "orphan_page", severity: "warning", message: "No other page links here: readers find it only through navigation or search" });
      }
      findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    }

    const list: QualityPage[] = [];
    for (const path of [...byPage.keys()].sort()) {
      if (only !== null && path !== only) continue;
      const findings = byPage.get(path)!;
      const lost = findings.reduce((sum, f) => sum + PENALTY[f.severity], 0);
      list.push({ path, score: Math.max(0, 100 - lost), findings });
    }
    const score = list.length === 0 ? 100 : Math.round(list.reduce((s, p) => s + p.score, 0) / list.length);
    return {
      report: { score, pages: list, findings: list.flatMap((p) => p.findings) },
      deadLinks: only === null ? deadLinks : deadLinks.filter((d) => d.path === only),
    };
  }

  /** Why a link is dead, or null when it works. Records what it reaches in `inbound`. */
  private checkLink(
    from: string,
    link: PageLink,
    pages: Set<string>,
    anchorsOf: (p: string) => Set<string>,
    fileExists: (p: string) => boolean,
    versionOf: (p: string) => string | null,
    inbound: Set<string>,
  ): string | null {
    let target: string | null;
    if (link.kind === "anchor") target = from;
    else if (link.kind === "wiki") target = link.target === null ? null : resolveWikiTarget(link.target, from, (p) => pages.has(p));
    else target = link.target;
    if (target === null) return `${link.raw} points outside the workspace`;

    if (link.kind === "file") {
      // A relative link to something that is not a .md file: an upload, or a page named without .md.
      // Images the web editor inserts name the uploads API; the file is the workspace's assets/{name}.
      const upload = /^api\/v1\/content\/[^/]+\/uploads\/([^/]+)$/.exec(target);
      if (upload) target = `assets/${upload[1]}`;
      if (pages.has(`${target}.md`)) target = `${target}.md`;
      else if (pages.has(`${target}/index.md`)) target = `${target}/index.md`;
      else if (fileExists(target)) return null;
      else return `${link.raw} names no page or file of the workspace`;
    } else if (!pages.has(target)) {
      return `${link.raw} links to ${target}, which does not exist`;
    }
    if (target !== from) inbound.add(target);
    const fromVersion = versionOf(from);
    const toVersion = versionOf(target);
    if (fromVersion !== toVersion) {
      return `${link.raw} links into another version (${toVersion ?? "the default version"}) from ${fromVersion ?? "the default version"}`;
    }
    if (link.anchor !== null && link.anchor !== "") {
      const anchors = anchorsOf(target);
      if (!anchors.has(link.anchor) && !anchors.has(anchorSlug(link.anchor))) {
        return `${link.raw}: ${target === from ? "this page" : target} has no heading #${link.anchor}`;
      }
    }
    return null;
  }
}

/**
 * The report type is declared here, beside its code; this fails to compile when it stops fitting
 * the documented schema (src/publish/schemas.ts).
 */
type MustFit<Answer extends Documented, Documented> = Answer;
export type QualityAnswerFits = MustFit<QualityReport, z.infer<typeof qualityReportOutput>>;
