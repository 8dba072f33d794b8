/**
 * The signed-in frame: a top bar (workspace switcher, theme, account) and a sidebar with the page
 * tree; the main area shows the open page or the workspace's welcome. On a phone the sidebar
 * becomes a drawer behind the menu button.
 */
import { lazy, Suspense, useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { Page, Workspace } from "../api/types.ts";
import { useAuth } from "../app/auth.tsx";
import { linkClick, navigate, pageUrl, useLocation } from "../app/router.ts";
import { readPageEarly } from "../api/pages.ts";
import { loadedOnce } from "../app/loaded-once.ts";
import { currentTheme, setTheme, type Theme } from "../app/theme.ts";
import { useTree, useWorkspaces } from "../app/workspace-data.ts";
import { useStorageHealth } from "../app/storage-health.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { NewPageDialog } from "./NewPageDialog.tsx";
import { JoinScreen } from "./InviteScreens.tsx";
import { NewWorkspaceDialog } from "./NewWorkspaceDialog.tsx";
import { PageTree } from "./PageTree.tsx";
import { LiveProvider } from "../live/LiveContext.tsx";
import { PresenceBar } from "../live/PresenceBar.tsx";
import { onPageChange } from "../live/page-events.ts";
import { useLive } from "../live/LiveContext.tsx";
import { useViewingReport } from "../live/viewing.ts";
import { usePeople } from "../app/people.ts";

// The editors are the heaviest part of the app: loaded only when a page is opened.
const loadPageScreen = loadedOnce(() => import("./PageScreen.tsx"));
const PageScreen = lazy(loadPageScreen);
const AccountScreen = lazy(() => import("./AccountScreen.tsx"));
const SearchDialog = lazy(() => import("./SearchDialog.tsx"));
const SettingsScreen = lazy(() => import("../settings/SettingsScreen.tsx"));
const ActivityScreen = lazy(() => import("./ActivityScreen.tsx"));
const TrashScreen = lazy(() => import("./TrashScreen.tsx"));
const ChangesScreen = lazy(() => import("./ChangesScreen.tsx"));
const AnalyticsScreen = lazy(() => import("./AnalyticsScreen.tsx"));

/** Analytics is for the people who write: editors and above (the API says the same). */
// Analytics are read by editors and above: the roles with the edit right (docs/decisions/web-rights.md).
const readsAnalytics = (w: Workspace) => w.rights.edit;
const QualityScreen = lazy(() => import("./QualityScreen.tsx"));

function ThemeSwitch() {
  const [theme, set] = useState<Theme>(currentTheme());
  const next: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };
  return (
    <button
      type="button"
      className="btn btn-ghost"
      aria-label={`Theme: ${theme}. Switch to ${next[theme]}`}
      title={`Theme: ${theme}`}
      onClick={() => {
        setTheme(next[theme]);
        set(next[theme]);
      }}
    >
      {theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}
    </button>
  );
}

function WorkspaceSwitcher({ workspaces, current }: { workspaces: Workspace[]; current: Workspace | undefined }) {
  return (
    <label className="ws-switcher">
      <span className="visually-hidden">Workspace</span>
      <select value={current?.slug ?? ""} onChange={(e) => navigate(`/w/${encodeURIComponent(e.target.value)}`)}>
        {!current && <option value="">Choose a workspace</option>}
        {workspaces.map((w) => (
          <option key={w.id} value={w.slug}>
            {w.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function WorkspaceHome({ workspace, empty, onNewPage }: { workspace: Workspace; empty: boolean; onNewPage(): void }) {
  return (
    <div className="home">
      <h1>{workspace.name}</h1>
      {workspace.description && <p className="muted">{workspace.description}</p>}
      {empty ? (
        <div className="empty">
          <p>This workspace has no pages yet.</p>
          {workspace.rights.create && (
            <button type="button" className="btn btn-primary" onClick={onNewPage}>
              Write the first page
            </button>
          )}
        </div>
      ) : (
        <p className="muted">Choose a page in the sidebar, or create a new one.</p>
      )}
    </div>
  );
}

export function Shell() {
  return (
    <LiveProvider>
      <ShellFrame />
    </LiveProvider>
  );
}

function ShellFrame() {
  const { user, signOutEverywhere } = useAuth();
  const { path, query } = useLocation();
  const { items: workspaces, error: wsError, reload: reloadWorkspaces } = useWorkspaces();
  const match = /^\/w\/([^/]+)(?:\/p\/(.+))?/.exec(path);
  const slug = match ? decodeURIComponent(match[1]!) : undefined;
  const pagePath = match?.[2] ? match[2].split("/").map(decodeURIComponent).join("/") : undefined;
  const settings = /^\/w\/[^/]+\/settings(?:\/([^/]+))?$/.exec(path);
  const activity = /^\/w\/[^/]+\/activity$/.test(path);
  const trash = /^\/w\/[^/]+\/trash$/.test(path);
  const changes = /^\/w\/[^/]+\/changes$/.test(path);
  const analytics = /^\/w\/[^/]+\/analytics$/.test(path);
  const quality = /^\/w\/[^/]+\/quality$/.test(path);
  const [creatingWs, setCreatingWs] = useState(false);
  const superAdmin = !!workspaces?.some((w) => w.role === "super_admin");
  const joinToken = path.startsWith("/join/") ? decodeURIComponent(path.slice("/join/".length)) : null;
  const workspace = workspaces?.find((w) => w.slug === slug);
  // Administrators see when the server's disk runs low or refuses writes (a banner over the page).
  const storage = useStorageHealth(workspace?.rights.admin ? workspace.id : null);
  // Opened at a page's address: its code and its text load now, beside the workspace list, not
  // after it. (Once the workspace is known the page screen mounts at once and reads for itself.)
  const waitingForWorkspace = !workspace;
  useEffect(() => {
    if (!slug || !pagePath || !waitingForWorkspace) return;
    void loadPageScreen();
    readPageEarly(slug, pagePath);
  }, [slug, pagePath, waitingForWorkspace]);
  const { tree, error: treeError, reload: reloadTree, expand, lazy, wholeTree } = useTree(workspace, pagePath);
  const [newIn, setNewIn] = useState<string | null>(null);
  const [drawer, setDrawer] = useState(false);
  const [searching, setSearching] = useState(false);
  const live = useLive();
  useViewingReport(live, workspace?.id, pagePath);
  // Who else has which page open, for the tree: page path → names.
  const viewingMap = workspace ? live?.viewingIn(workspace.id) : undefined;
  const people = usePeople(workspace?.id, viewingMap ? [...viewingMap.keys()] : []);
  const viewers: Record<string, string[]> = {};
  for (const [who, at] of viewingMap ?? []) {
    if (who === user?.id) continue;
    (viewers[at] ??= []).push(people.find((p) => p.id === who)?.name ?? "Someone");
  }

  // Live page events of this workspace re-read the tree (a burst of events reads it once).
  useEffect(() => {
    if (!workspace) return;
    let t: ReturnType<typeof setTimeout> | null = null;
    const off = onPageChange((c) => {
      if (c.workspace_id !== workspace.id) return;
      if (t) clearTimeout(t);
      t = setTimeout(() => void reloadTree(), 150);
    });
    return () => {
      off();
      if (t) clearTimeout(t);
    };
  }, [workspace, reloadTree]);

  // Ctrl/Cmd+K opens the search anywhere in the app (the editor's own shortcuts use other keys).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && !e.altKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setSearching(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  // "/" and unknown workspaces go to the first workspace the person can read.
  useEffect(() => {
    if (!workspaces || path.startsWith("/account") || joinToken !== null) return;
    if ((!slug || !workspace) && workspaces[0]) navigate(`/w/${encodeURIComponent(workspaces[0].slug)}`, { replace: true });
  }, [workspaces, slug, workspace, path, joinToken]);
  useEffect(() => setDrawer(false), [path]);

  const onCreated = (page: Page) => {
    setNewIn(null);
    void reloadTree();
    if (workspace) navigate(pageUrl(workspace.slug, page.path));
  };

  let main;
  if (path.startsWith("/account")) main = <AccountScreen />;
  else if (joinToken !== null) main = <JoinScreen token={joinToken} onJoined={reloadWorkspaces} />;
  else if (wsError) main = <Notice kind="error">{messageOf(wsError)}</Notice>;
  else if (!workspaces) main = <Spinner label="Loading workspaces" />;
  else if (workspaces.length === 0)
    main = (
      <div className="empty">
        <h1>No workspace yet</h1>
        <p>You are not a member of any workspace. Ask an administrator for an invitation.</p>
      </div>
    );
  else if (!workspace) main = <Spinner />;
  else if (activity) main = <ActivityScreen workspace={workspace} page={query.get("page")} />;
  else if (trash) main = <TrashScreen workspace={workspace} onTreeChanged={reloadTree} />;
  else if (changes) main = <ChangesScreen workspace={workspace} />;
  else if (analytics) main = <AnalyticsScreen workspace={workspace} />;
  else if (quality) main = <QualityScreen workspace={workspace} />;
  else if (settings) main = <SettingsScreen workspace={workspace} tab={settings[1]} onWorkspaceChanged={reloadWorkspaces} />;
  else if (pagePath) main = (
      <PageScreen
        key={`${workspace.slug}/${pagePath}/${query.get("line") ?? ""}`}
        workspace={workspace}
        path={pagePath}
        onTreeChanged={reloadTree}
        line={/^[1-9]\d{0,6}$/.test(query.get("line") ?? "") ? Number(query.get("line")) : undefined}
      />
    );
  else main = <WorkspaceHome workspace={workspace} empty={tree !== null && tree.length === 0} onNewPage={() => setNewIn("")} />;

  return (
    <div className={`shell${drawer ? " drawer-open" : ""}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button type="button" className="btn btn-ghost menu-button" aria-label="Show pages" aria-expanded={drawer} onClick={() => setDrawer(!drawer)}>
          ☰
        </button>
        <a className="brand" href="/" onClick={linkClick}>
          Quire
        </a>
        {workspaces && workspaces.length > 0 && <WorkspaceSwitcher workspaces={workspaces} current={workspace} />}
        {superAdmin && (
          <button type="button" className="btn btn-ghost btn-small" aria-label="New workspace" title="New workspace" onClick={() => setCreatingWs(true)}>
            +
          </button>
        )}
        <div className="topbar-spacer" />
        {workspace && (
          <button type="button" className="btn btn-ghost search-button" aria-label="Search pages, Ctrl K" aria-keyshortcuts="Control+K Meta+K" title="Search pages (Ctrl+K)" onClick={() => setSearching(true)}>
            <span aria-hidden="true">⌕</span>
            {/* The name holds every word shown (WCAG 2.5.3), so speech input can say what it sees. */}
            <span className="search-label" aria-hidden="true">
              Search pages <kbd>Ctrl K</kbd>
            </span>
          </button>
        )}
        {workspace && <PresenceBar workspaceId={workspace.id} me={user?.id} />}
        <ThemeSwitch />
        <details className="account-menu">
          <summary className="btn btn-ghost" aria-label={user?.name ? `Account, ${user.name}` : "Account"}>
            {user?.name ?? "Account"}
          </summary>
          <div className="menu" role="menu">
            <div className="menu-label">{user?.email}</div>
            <a role="menuitem" href="/account" onClick={linkClick}>
              Profile and sessions
            </a>
            <button role="menuitem" type="button" onClick={() => void signOutEverywhere()}>
              Sign out everywhere
            </button>
          </div>
        </details>
      </header>
      <nav className="sidebar" aria-label="Workspace pages">
        {workspace && (
          <>
            <div className="sidebar-head">
              <span className="sidebar-title">Pages</span>
              {workspace.rights.create && (
                <button type="button" className="btn btn-small" onClick={() => setNewIn("")}>
                  + New page
                </button>
              )}
            </div>
            {treeError ? (
              <Notice kind="error">{messageOf(treeError)}</Notice>
            ) : tree === null ? (
              <Spinner label="Loading pages" />
            ) : tree.length === 0 ? (
              <p className="muted sidebar-empty">No pages yet.</p>
            ) : (
              <PageTree
                tree={tree}
                slug={workspace.slug}
                current={pagePath}
                rights={workspace.rights}
                lazy={lazy}
                expand={(f) => void expand(f)}
                wholeTree={wholeTree}
                viewers={viewers}
                onNewPage={(f) => setNewIn(f)}
                onChanged={reloadTree}
                onMoved={(from, to) => {
                  if (from === pagePath) navigate(pageUrl(workspace.slug, to), { replace: true });
                }}
                onDeleted={(deleted) => {
                  if (deleted === pagePath) navigate(`/w/${encodeURIComponent(workspace.slug)}`, { replace: true });
                }}
              />
            )}
          </>
        )}
        {workspace && (
          <div className="sidebar-foot">
            <a href={`/w/${encodeURIComponent(workspace.slug)}/activity`} onClick={linkClick} aria-current={activity ? "page" : undefined}>
              Activity
            </a>
            <a href={`/w/${encodeURIComponent(workspace.slug)}/changes`} onClick={linkClick} aria-current={changes ? "page" : undefined}>
              Changes
            </a>
            <a href={`/w/${encodeURIComponent(workspace.slug)}/trash`} onClick={linkClick} aria-current={trash ? "page" : undefined}>
              Trash
            </a>
            {readsAnalytics(workspace) && (
              <a href={`/w/${encodeURIComponent(workspace.slug)}/analytics`} onClick={linkClick} aria-current={analytics ? "page" : undefined}>
                Analytics
              </a>
            )}
            <a href={`/w/${encodeURIComponent(workspace.slug)}/quality`} onClick={linkClick} aria-current={quality ? "page" : undefined}>
              Quality
            </a>
            <a href={`/w/${encodeURIComponent(workspace.slug)}/settings`} onClick={linkClick} aria-current={settings ? "page" : undefined}>
              Settings
            </a>
          </div>
        )}
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        {storage && (
          <div className="storage-banner">
            <Notice kind={storage.status === "unavailable" ? "error" : "warning"}>
              {storage.status === "unavailable"
                ? "The server's storage is refusing writes (" + (storage.message ?? "full or read-only") + "): saves fail until space is freed. Editors keep their text and retry by themselves."
                : "The server's disk is running low on free space (" + (storage.message ?? "under the configured minimum") + "). Free space before saves start failing."}
            </Notice>
          </div>
        )}
        <Suspense fallback={<Spinner />}>{main}</Suspense>
      </main>
      {workspace && searching && (
        <Suspense fallback={null}>
          <SearchDialog workspace={workspace} onClose={() => setSearching(false)} />
        </Suspense>
      )}
      {superAdmin && (
        <NewWorkspaceDialog
          open={creatingWs}
          onClose={() => setCreatingWs(false)}
          onCreated={async (ws) => {
            setCreatingWs(false);
            await reloadWorkspaces();
            navigate(`/w/${encodeURIComponent(ws.slug)}`);
          }}
        />
      )}
      {workspace && <NewPageDialog slug={workspace.slug} folder={newIn} onClose={() => setNewIn(null)} onCreated={onCreated} />}
    </div>
  );
}
