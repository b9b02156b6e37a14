import { buttonClass } from "./ui";
import { Time } from "@/components/time";

/** A two-step revoke: "Revoke" asks, then "Confirm revoke" or "Keep" (keys and invitations alike). */
export function ConfirmRevoke(props: {
  asking: boolean;
  pending: boolean;
  onAsk: () => void;
  onConfirm: () => void;
  onKeep: () => void;
}) {
  if (!props.asking)
    return (
      <button type="button" className={buttonClass()} onClick={props.onAsk}>
        Revoke
      </button>
    );
  return (
    <span className="inline-flex gap-1">
      <button type="button" className={buttonClass("danger")} disabled={props.pending} onClick={props.onConfirm}>
        Confirm revoke
      </button>
      <button type="button" className={buttonClass("ghost")} onClick={props.onKeep}>
        Keep
      </button>
    </span>
  );
}

/** A key's state cell: active, or revoked with when. */
export function KeyState({ revokedAt }: { revokedAt: Date | string | null }) {
  return revokedAt ? (
    <span className="text-rose-700">
      revoked <Time value={revokedAt} />
    </span>
  ) : (
    <span className="text-emerald-700">active</span>
  );
}
