/** Current time in milliseconds and ISO form; one place so every record agrees. */
export const nowMs = (): number => Date.now();
export const nowIso = (): string => new Date().toISOString();
export const isoFromMs = (ms: number): string => new Date(ms).toISOString();
