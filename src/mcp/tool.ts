import type { z } from "zod";
import type { Services } from "../services.ts";
import type { Principal } from "../core/principal.ts";
import type { ContentAccess } from "../content/rights.ts";

/**
 * One MCP tool: a thin adapter that names the domain's input schema, the shape of its result, the
 * scope a key needs, and the one service call it makes. The four annotations are always set.
 */
export interface ToolDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** Whether the tool acts in one workspace (and so takes the optional `workspace` argument). */
  workspace: boolean;
  /**
   * The API-key scope the call needs, as the REST equivalent's method would (GET read, POST/PUT
   * write, DELETE delete); `admin` for the workspace admins' tools, listed only to keys holding
   * that scope (every other agent's list stays as small as before).
   */
  scope: "read" | "write" | "delete" | "admin";
  /** The docs/interfaces.md §8 rate-limit category of the REST equivalent, when it has one. */
  rate?: "content_read" | "content_write" | "search" | "ai_assist";
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** The result is checked against `output` on every call (the SDK validates structured content). */
  run(call: ToolCall, args: z.infer<I> & { workspace?: string }): Promise<object> | object;
}

/** What a tool's `run` gets: the caller (already checked), the services, and the workspace it names. */
export interface ToolCall {
  services: Services;
  principal: Principal;
  transport: "stdio" | "http";
  /** The workspace slug the call acts in (the argument, the stdio workspace, or the key's only one). */
  workspaceSlug(): string;
  /** The caller's rights in that workspace, as content operations need them (origin "MCP"). */
  access(): ContentAccess;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
