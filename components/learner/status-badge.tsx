import { useTranslations } from "next-intl";
import { STATUS_TONE, type Job } from "./labels";

/** A job's status in the learner's words, as a coloured pill. */
export function StatusBadge({ status }: { status: Job["status"] }) {
  const t = useTranslations("status");
  return (
    <span
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STATUS_TONE[status]}`}
    >
      {t(status)}
    </span>
  );
}
