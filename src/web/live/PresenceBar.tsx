/** Who else is in this workspace right now (from the live stream), as initials with names for screen readers. */
import { usePeople } from "../app/people.ts";
import { useLive } from "./LiveContext.tsx";

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("") || "?";

export function PresenceBar({ workspaceId, me }: { workspaceId: string; me: string | undefined }) {
  const live = useLive();
  const present = (live?.presentIn(workspaceId) ?? []).filter((id) => id !== me);
  const people = usePeople(workspaceId, present);
  const names = present.map((id) => people.find((p) => p.id === id)?.name ?? "Someone");
  const viewing = live?.viewingIn(workspaceId);
  return (
    <div className="presence" aria-live="polite">
      {live?.status === "offline" && (
        <span className="badge badge-warn" role="status">
          Reconnecting…
        </span>
      )}
      {names.length > 0 && (
        <ul className="presence-list" aria-label={`Also here: ${names.join(", ")}`}>
          {names.map((n, i) => (
            <li key={present[i]} className="avatar" title={viewing?.get(present[i]!) ? `${n} is on ${viewing.get(present[i]!)}` : `${n} is here`}>
              <span aria-hidden="true">{initials(n)}</span>
              <span className="visually-hidden">{n}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
