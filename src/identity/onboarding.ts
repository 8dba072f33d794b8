/**
 * Each person's onboarding state: which first-run steps are done and whether the checklist was
 * dismissed. A person who never touched it reads as nothing done, not dismissed.
 */
import type { Db } from "../db/database.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import { ONBOARDING_STEPS, updateOnboardingInput, type OnboardingOutput, type OnboardingStep } from "./onboarding-schemas.ts";

/** The checklist as answered: the documented output schema's type. */
type OnboardingJson = OnboardingOutput;

interface Row {
  steps: string;
  dismissed_at: string | null;
  updated_at: string;
}

export class Onboarding {
  constructor(private readonly db: Db) {}

  get(userId: string): OnboardingJson {
    const row = this.db.query<Row, [string]>("SELECT steps, dismissed_at, updated_at FROM user_onboarding WHERE user_id = ?").get(userId);
    const done = row ? (JSON.parse(row.steps) as Partial<Record<OnboardingStep, string>>) : {};
    const steps = ONBOARDING_STEPS.map((id) => ({ id, done: done[id] !== undefined, done_at: done[id] ?? null }));
    return {
      steps,
      completed: steps.every((s) => s.done),
      dismissed: row?.dismissed_at != null,
      dismissed_at: row?.dismissed_at ?? null,
      updated_at: row?.updated_at ?? null,
    };
  }

  update(userId: string, body: unknown): OnboardingJson {
    const input = parseInput(updateOnboardingInput, body);
    const now = nowIso();
    this.db.transaction(() => {
      const current = this.get(userId);
      const steps: Record<string, string> = {};
      for (const s of current.steps) if (s.done_at) steps[s.id] = s.done_at;
      for (const [id, done] of Object.entries(input.steps ?? {})) {
        if (done && !steps[id]) steps[id] = now;
        if (!done) delete steps[id];
      }
      const dismissedAt = input.dismissed === undefined ? current.dismissed_at : input.dismissed ? (current.dismissed_at ?? now) : null;
      this.db
        .query(
          `INSERT INTO user_onboarding (user_id, steps, dismissed_at, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (user_id) DO UPDATE SET steps = excluded.steps, dismissed_at = excluded.dismissed_at, updated_at = excluded.updated_at`,
        )
        .run(userId, JSON.stringify(steps), dismissedAt, now);
    })();
    return this.get(userId);
  }
}
