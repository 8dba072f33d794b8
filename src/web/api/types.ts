/** Shapes of the API's JSON as DESIGN.md §8 and SPEC.md describe them (snake_case). */
export interface User {
  id: string;
  name: string;
  email: string;
  email_verified?: boolean;
  has_password?: boolean;
  created_at?: string;
}

export type Role = "viewer" | "commenter" | "editor" | "admin" | "super_admin" | string;

export interface Workspace {
  id: string;
  org_id?: string;
  name: string;
  slug: string;
  description?: string;
  role: Role | null;
  /** What the caller may do here, decided by the server (docs/decisions/web-rights.md). */
  rights: WorkspaceRights;
  page_count?: number;
  editor_can_create_pages?: boolean;
  editor_can_delete_pages?: boolean;
}

export interface WorkspaceRights {
  read: boolean;
  comment: boolean;
  edit: boolean;
  create: boolean;
  delete: boolean;
  move: boolean;
  admin: boolean;
}

export interface List<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Page {
  page_id: string;
  path: string;
  title: string;
  description: string;
  content: string;
  content_hash: string;
  frontmatter_hash?: string;
  tags: string[];
  status?: string;
  publish?: boolean;
  created_at: string;
  updated_at: string;
  /** What is wrong with the file as stored (invalid frontmatter): the page still loads. */
  problems?: Array<{ kind: string; message: string }>;
}

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
}

export interface Session {
  id: string;
  device: string;
  ip: string;
  created_at: string;
  last_active_at: string;
  current: boolean;
}

export interface BootData {
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
