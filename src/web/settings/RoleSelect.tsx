/** The one control for choosing a workspace role: members, invitations and share links use it. */
import { roleLabel } from "./common.tsx";

/** Roles an admin can give someone in a workspace (Super Admin comes from the organization). */
const MEMBER_ROLES = ["viewer", "commenter", "editor", "admin"];
/** A share link never grants admin: anyone holding the link could use it. */
export const SHARE_LINK_ROLES = ["viewer", "commenter", "editor"];

export function RoleSelect(props: {
  value: string;
  onChange(role: string): void;
  roles?: string[];
  /** For a visible `<label htmlFor>`; a select inside a table row is named by `label` instead. */
  id?: string;
  label?: string;
  disabled?: boolean;
}) {
  return (
    <select id={props.id} aria-label={props.label} value={props.value} disabled={props.disabled} onChange={(e) => props.onChange(e.target.value)}>
      {(props.roles ?? MEMBER_ROLES).map((r) => (
        <option key={r} value={r}>
          {roleLabel[r]}
        </option>
      ))}
    </select>
  );
}
