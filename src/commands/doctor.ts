/**
 * `quire doctor [--json] [--bundle]`: the eleven checks of docs/architecture.md §13 (src/ops/doctor.ts), each pass,
 * warn or fail with a hint. Exit 0 when none fails (warnings allowed), 1 when any fails. Read-only,
 * with or without a running server; `--bundle` also writes `{DATA_DIR}/diagnostics-<timestamp>.zip`.
 */
import { defineCommand } from "citty";
import { runDoctor, type CheckResult } from "../ops/doctor.ts";
import { describeError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

const MARK: Record<CheckResult["status"], string> = { pass: "ok  ", warn: "WARN", fail: "FAIL" };

export const doctorCommand = defineCommand({
  meta: {
    name: "doctor",
    description: "Check the configuration, data directory, databases, git, workspaces, links and backups (exit 0 no failure, 1 a check failed)",
  },
  args: {
    json: { type: "boolean", description: "Print the results as one JSON object" },
    bundle: { type: "boolean", description: "Also write <data-dir>/diagnostics-<timestamp>.zip (no page content, passwords, tokens or keys)" },
    ...dataDirArg,
  },
  async run({ args }) {
    const { path: dataDir, rule } = dataDirFrom(args);
    const report = runDoctor(dataDir);
    let bundle: string | undefined;
    if (args.bundle) {
      const { writeDiagnosticsBundle } = await import("../ops/diagnostics-bundle.ts");
      const { loadConfig } = await import("../config.ts");
      let config = null;
      try {
        config = loadConfig(process.env);
      } catch {
        config = null; // the config check already says what is wrong
      }
      try {
        bundle = writeDiagnosticsBundle({ dataDir, dataDirRule: rule, report, config });
      } catch (error) {
        // Said as a full disk when it is one (the refusal before writing, or a write cut short);
        // the checks are still printed, and the exit code says the bundle is missing.
        process.stderr.write(`quire: the diagnostics bundle could not be written: ${describeError(error).message}\n`);
        process.exitCode = 1;
      }
    }
    if (args.json) {
      process.stdout.write(JSON.stringify({ ok: report.ok, data_dir: dataDir, data_dir_rule: rule, checks: report.checks, ...(bundle ? { bundle } : {}) }) + "\n");
    } else {
      process.stdout.write(`data directory: ${dataDir} (${rule})\n`);
      for (const c of report.checks) {
        process.stdout.write(`${MARK[c.status]}  ${c.name.padEnd(18)} ${c.message}\n`);
        if (c.hint) process.stdout.write(`      ${"".padEnd(18)} → ${c.hint}\n`);
      }
      const fails = report.checks.filter((c) => c.status === "fail").length;
      const warns = report.checks.filter((c) => c.status === "warn").length;
      process.stdout.write(`${fails === 0 ? "no failures" : `${fails} failed`}, ${warns} warning${warns === 1 ? "" : "s"}\n`);
      if (bundle) process.stdout.write(`diagnostics bundle: ${bundle}\n`);
    }
    if (!report.ok) process.exitCode = 1;
  },
});
