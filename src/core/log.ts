/**
 * Structured logs: one JSON object per line, or a short human line when stderr is a terminal.
 * Fields whose names look secret are replaced before anything is written, so a careless call
 * site cannot leak a password, token or key.
 */
type LogLevel = "debug" | "info" | "warn" | "error";
type LogFields = Record<string, unknown>;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|api[_-]?key|pepper|private|credential/i;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /**
   * Whether a line of this level would be written. A caller whose fields cost work to build (the
   * request log runs for every request) asks first, so a level that is off costs nothing.
   */
  enabled(level: LogLevel): boolean;
}

interface LoggerOptions {
  level?: LogLevel;
  pretty?: boolean;
  write?: (line: string) => void;
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

export function createLogger(options: LoggerOptions = {}, base: LogFields = {}): Logger {
  const min = LEVELS[options.level ?? "info"];
  const pretty = options.pretty ?? false;
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));

  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LEVELS[level] < min) return;
    const all = redact({ ...base, ...fields }) as LogFields;
    if (pretty) {
      const time = new Date().toISOString().slice(11, 19);
      const extra = Object.entries(all)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(" ");
      write(`${time} ${level.toUpperCase().padEnd(5)} ${msg}${extra ? "  " + extra : ""}`);
    } else {
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...all }));
    }
  };

  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger(options, { ...base, ...fields }),
    enabled: (level) => LEVELS[level] >= min,
  };
}

/** A logger that drops everything (tests and short CLI commands that print their own output). */
export const silentLogger: Logger = createLogger({ write: () => {} });
