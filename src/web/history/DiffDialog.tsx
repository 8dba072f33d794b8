/** The dialog that shows one diff (useShownDiff): its title, then the diff, or the error of reading it. */
import { messageOf } from "../api/client.ts";
import { Dialog, Notice, Spinner } from "../ui/controls.tsx";
import { DiffView } from "./DiffView.tsx";
import type { ShownDiff } from "./use-shown-diff.ts";

export function DiffDialog({ shown, onClose }: { shown: ShownDiff | null; onClose: () => void }) {
  return (
    <Dialog open={shown !== null} title={shown?.title ?? "Changes"} onClose={onClose}>
      {shown?.error !== undefined ? (
        <Notice kind="error">{messageOf(shown.error)}</Notice>
      ) : shown?.diff ? (
        <DiffView diff={shown.diff} label={shown.title} />
      ) : (
        <Spinner label="Loading the diff" />
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
