/** The web app's view of the API's JSON: the generated answer types, and the shapes the app itself derives. */
import type * as Api from "./openapi-types.ts";

/** Answers the server documents: the generated types (openapi-types.ts, `bun run web:types`). */
export type User = Api.User;
export type Workspace = Api.Workspace;
export type WorkspaceRights = Api.Workspace["rights"];
type Role = NonNullable<Api.Workspace["role"]>;
export type Session = Api.Session;
export type Comment = Api.Comment;
export type Person = Api.Person;

export interface List<T> {
  items: T[];
  next_cursor: string | null;
}

/** A page as read or saved: the documented page object, whose body every read and write answer carries. */
export type Page = Api.Page & { content: string };

/** One node of the page tree; folders may have a page of their own (index.md). */
export interface TreeNode {
  name: string;
  path: string;
  title: string;
  page_id: string | null;
  kind: "page" | "folder";
  children: TreeNode[];
  /** A folder's number of direct children, when the tree was loaded by folder. */
  child_count?: number;
  /** A folder whose children are not loaded yet (large workspaces load the tree by folder). */
  unloaded?: boolean;
  /** The folder or page has its own access list (docs/decisions/restricted-folders.md): a lock is shown. */
  restricted?: boolean;
}

interface BootData {
  signup_enabled: boolean;
  email_enabled: boolean;
  /** The external sign-in providers this instance enables (a button each). */
  providers: Array<{ id: string; name: string }>;
  /** "Sign in with a passkey" is offered. */
  passkeys: boolean;
  version: string;
}

export function bootData(): BootData {
  const el = document.getElementById("quire-boot");
  const fallback: BootData = { signup_enabled: true, email_enabled: false, providers: [], passkeys: false, version: "" };
  try {
    return { ...fallback, ...(JSON.parse(el?.textContent ?? "{}") as Partial<BootData>) };
  } catch {
    return fallback;
  }
}

/** The nonce of this document's CSP, for editors that inject style elements. */
export function cspNonce(): string | undefined {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]');
  return meta?.nonce || undefined;
}
