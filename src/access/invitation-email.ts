import { escapeHtml } from "../core/escape.ts";
import type { OutgoingEmail } from "../mail/email-outbox.ts";
import type { WorkspaceRole } from "../workspaces/roles.ts";


/** The invitation message: plain text for every client, and a simple HTML part with the same words. */
export function invitationEmail(m: {
  to: string;
  workspaceName: string;
  inviterName: string;
  role: WorkspaceRole;
  url: string;
  expiresAt: string;
}): OutgoingEmail {
  const expires = m.expiresAt.slice(0, 10);
  const subject = `You are invited to ${m.workspaceName} on Quire`;
  const text = [
    `${m.inviterName} invited you to join the workspace "${m.workspaceName}" as ${m.role}.`,
    "",
    "Accept the invitation here:",
    m.url,
    "",
    `The link can be used once and expires on ${expires}. If you did not expect this email, ignore it.`,
  ].join("\n");
  const html = [
    `<p>${escapeHtml(m.inviterName)} invited you to join the workspace <strong>${escapeHtml(m.workspaceName)}</strong> as ${m.role}.</p>`,
    `<p><a href="${escapeHtml(m.url)}">Accept the invitation</a></p>`,
    `<p>The link can be used once and expires on ${expires}. If you did not expect this email, ignore it.</p>`,
  ].join("\n");
  return { to: m.to, subject, text, html };
}
