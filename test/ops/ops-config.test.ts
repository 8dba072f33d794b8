/** The operations variables: defaults, and bad values reported with every other problem at once. */
import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

test("defaults: metrics off, no metrics port, daily backups kept 7 days", () => {
  const c = loadConfig({});
  expect(c.metrics).toEqual({ enabled: false });
  expect(c.backup).toEqual({ enabled: true, retentionDays: 7 });
  expect(loadConfig({ FF_METRICS: "true", METRICS_PORT: "9464", BACKUP_ENABLED: "false", BACKUP_RETENTION_DAYS: "30" })).toMatchObject({
    metrics: { enabled: true, port: 9464 },
    backup: { enabled: false, retentionDays: 30 },
  });
});

test("bad values are all named at once", () => {
  let error: unknown;
  try {
    loadConfig({ FF_METRICS: "maybe", METRICS_PORT: "70000", BACKUP_ENABLED: "sometimes", BACKUP_RETENTION_DAYS: "0" });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const problems = (error as ConfigError).problems.join("\n");
  for (const name of ["FF_METRICS", "METRICS_PORT", "BACKUP_ENABLED", "BACKUP_RETENTION_DAYS"]) expect(problems).toContain(name);
});
