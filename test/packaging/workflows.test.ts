/**
 * The GitHub Actions workflows cannot run here: they are parsed and checked against the workflow
 * schema by GitHub's own parser (@actions/workflow-parser, what the Actions editor tooling uses),
 * then held to what they must do.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from "@actions/workflow-parser";

const REPO = join(import.meta.dir, "../..");

async function check(name: string, content: string) {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  const template = parsed.value ? await convertWorkflowTemplate(parsed.context, parsed.value) : undefined;
  return { errors: [...errors, ...(template?.errors ?? []).map((e) => e.Message)], template };
}

test("the checker rejects a workflow with an unknown trigger or step key (it can fail)", async () => {
  const bad = "on:\n  pushh:\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo\n        bogus: 1\n";
  const { errors } = await check("bad.yml", bad);
  expect(errors.join("\n")).toContain("Unexpected value 'pushh'");
  expect(errors.join("\n")).toContain("Unexpected value 'bogus'");
});

test("ci.yml is a valid workflow that runs .ci/run on pushes and pull requests", async () => {
  const content = readFileSync(join(REPO, ".github/workflows/ci.yml"), "utf8");
  const { errors, template } = await check("ci.yml", content);
  expect(errors).toEqual([]);
  const yaml = Bun.YAML.parse(content) as { on: Record<string, unknown>; jobs: Record<string, { steps: Array<{ run?: string; uses?: string }> }> };
  expect(Object.keys(yaml.on).sort()).toEqual(["pull_request", "push"]);
  expect(template?.jobs.length).toBe(1);
  const steps = Object.values(yaml.jobs)[0]!.steps;
  expect(steps.some((s) => s.uses?.startsWith("actions/checkout@"))).toBe(true);
  expect(steps.some((s) => s.run?.includes(".ci/run"))).toBe(true);
});

test("release.yml is a valid workflow that, on a version tag, runs bun run release, checks SHA256SUMS and publishes dist/release", async () => {
  const content = readFileSync(join(REPO, ".github/workflows/release.yml"), "utf8");
  const { errors } = await check("release.yml", content);
  expect(errors).toEqual([]);
  const yaml = Bun.YAML.parse(content) as { on: { push: { tags: string[] } }; permissions: Record<string, string>; jobs: Record<string, { steps: Array<{ run?: string }> }> };
  expect(Object.keys(yaml.on)).toEqual(["push"]);
  expect(yaml.on.push.tags).toEqual(["v[0-9]+.[0-9]+.[0-9]+*"]);
  expect(yaml.permissions.contents).toBe("write");
  const runs = Object.values(yaml.jobs)[0]!.steps.map((s) => s.run ?? "").join("\n");
  expect(runs).toContain("bun run release");
  expect(runs).toContain("sha256sum --check --strict SHA256SUMS");
  expect(runs).toContain("gh release create \"$TAG\"");
  expect(runs).toContain("gh release create latest");
});
