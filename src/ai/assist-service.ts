import { InternalError, RateLimitedError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { parseInput } from "../core/validate.ts";
import { assistInstructions } from "./modes.ts";
import { assistInput, type AssistOutput } from "./schemas.ts";

/** The configured model: an OpenAI-compatible chat completions endpoint (OpenAI, Ollama, llama.cpp, vLLM, …). */
interface AiConfig {
  /** Base URL without a trailing slash, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
}

/** With a model: its answer. Without one: what to do, for the calling agent to carry out itself. */
/** The answer: the documented output schema's type. */
type AssistResult = AssistOutput;

const TIMEOUT_MS = 60_000;
/** Longest answer read from the model; a chat completion of a page section is far smaller. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * Writing assist (docs/architecture.md §12): one service behind the editor's Assist menu, `POST /api/ai/assist`
 * and the MCP tool `quire_writing_assist`. The endpoint is the operator's own configuration, so it
 * may be on loopback or the local network (a local model is the common case); redirects are never
 * followed, so the request (and its key) cannot be bounced elsewhere (docs/decisions/mcp.md).
 */
export class AssistService {
  constructor(
    private readonly config: AiConfig | undefined,
    private readonly log: Logger,
  ) {}

  get configured(): boolean {
    return this.config !== undefined;
  }

  async assist(body: unknown): Promise<AssistResult> {
    const input = parseInput(assistInput, body);
    const instructions = assistInstructions(input.mode, input.language);
    if (!this.config) return { instructions, text: input.text };
    const text = await this.complete(this.config, instructions, input.text);
    return { text, model: this.config.model };
  }

  private async complete(ai: AiConfig, system: string, user: string): Promise<string> {
    let response: Response;
    try {
      response = await fetch(`${ai.baseUrl}/chat/completions`, {
        method: "POST",
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(ai.apiKey ? { authorization: `Bearer ${ai.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: ai.model,
          messages: [
            { role: "system", content: system },
            { role: "user", content: user },
          ],
          temperature: 0.3,
          stream: false,
        }),
      });
    } catch (error) {
      this.log.warn("writing model unreachable", { error: String(error) });
      throw new InternalError("The writing model could not be reached; try again later or ask an administrator to check AI_BASE_URL");
    }
    const raw = await readCapped(response);
    const json = parseJson(raw);
    if (!response.ok) {
      const message = modelErrorMessage(json) ?? `HTTP ${response.status}`;
      this.log.warn("writing model refused", { status: response.status, message });
      if (response.status === 429) {
        const retry = Math.max(1, Number(response.headers.get("retry-after")) || 30);
        throw new RateLimitedError(0, Math.ceil(Date.now() / 1000) + retry, retry);
      }
      if (response.status === 401 || response.status === 403) {
        throw new InternalError("The writing model refused the configured credentials; ask an administrator to check AI_API_KEY");
      }
      if (response.status >= 300 && response.status < 400) throw new InternalError("The writing model's endpoint redirects; AI_BASE_URL must name the endpoint itself");
      throw new InternalError(`The writing model answered with an error: ${message}`);
    }
    const content = (json as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]?.message?.content;
    if (typeof content !== "string") throw new InternalError("The writing model's answer had no text");
    return stripFence(content.trim());
  }
}

async function readCapped(response: Response): Promise<string> {
  const length = Number(response.headers.get("content-length"));
  if (length > MAX_RESPONSE_BYTES) throw new InternalError("The writing model's answer is too large");
  const buf = await response.arrayBuffer();
  if (buf.byteLength > MAX_RESPONSE_BYTES) throw new InternalError("The writing model's answer is too large");
  return new TextDecoder().decode(buf);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** OpenAI's documented error shape: `{error: {message, type, param, code}}`. */
function modelErrorMessage(json: unknown): string | null {
  const message = (json as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === "string" ? message.slice(0, 300) : null;
}

/** Models sometimes wrap the whole answer in one code fence despite being told not to. */
function stripFence(text: string): string {
  const m = /^```[a-z]*\n([\s\S]*?)\n```$/.exec(text);
  return m ? m[1]! : text;
}
