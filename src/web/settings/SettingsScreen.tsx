/**
 * Settings of a workspace, by role: admins see every tab; everyone sees their own API keys.
 * Each tab has its own address (/w/:slug/settings/:tab) so it can be linked and reloaded.
 */
import { lazy, Suspense } from "react";
import type { Workspace } from "../api/types.ts";
import { linkClick } from "../app/router.ts";
import { Spinner } from "../ui/controls.tsx";
import { ApiKeysSettings } from "./ApiKeysSettings.tsx";
import { GeneralSettings } from "./GeneralSettings.tsx";
import { InvitationsSettings } from "./InvitationsSettings.tsx";
import { MembersSettings } from "./MembersSettings.tsx";
import { ShareLinksSettings } from "./ShareLinksSettings.tsx";
import { SiteSettings } from "./SiteSettings.tsx";

const GitSettings = lazy(() => import("./GitSettings.tsx"));

const ADMIN_TABS: Array<[string, string]> = [
  ["general", "General"],
  ["site", "Site"],
  ["members", "Members"],
  ["invitations", "Invitations"],
  ["share-links", "Share links"],
  ["git", "Git sync"],
];

export default function SettingsScreen({ workspace, tab, onWorkspaceChanged }: { workspace: Workspace; tab: string | undefined; onWorkspaceChanged(): void }) {
  const admin = workspace.rights.admin;
  const tabs: Array<[string, string]> = [...(admin ? ADMIN_TABS : []), ["api-keys", "API keys"]];
  const current = tabs.find(([id]) => id === tab)?.[0] ?? tabs[0]![0];
  const base = `/w/${encodeURIComponent(workspace.slug)}/settings`;
  const title = tabs.find(([id]) => id === current)![1];
  return (
    <div className="settings">
      <h1>Settings · {workspace.name}</h1>
      <nav className="tabs" aria-label="Settings sections">
        {tabs.map(([id, label]) => (
          <a key={id} href={`${base}/${id}`} onClick={linkClick} aria-current={id === current ? "page" : undefined} className={id === current ? "tab active" : "tab"}>
            {label}
          </a>
        ))}
      </nav>
      <section aria-label={title} className="settings-section">
        <h2>{title}</h2>
        {current === "general" && <GeneralSettings workspace={workspace} onSaved={onWorkspaceChanged} />}
        {current === "site" && <SiteSettings workspace={workspace} />}
        {current === "members" && <MembersSettings workspace={workspace} />}
        {current === "invitations" && <InvitationsSettings workspace={workspace} />}
        {current === "share-links" && <ShareLinksSettings workspace={workspace} />}
        {current === "git" && (
          <Suspense fallback={<Spinner />}>
            <GitSettings workspace={workspace} />
          </Suspense>
        )}
        {current === "api-keys" && <ApiKeysSettings workspace={workspace} />}
      </section>
    </div>
  );
}
