type Point = { knowledgePointId: string; title: string; mastery: number; evidence: number };
type Mastery = { mean: number | null; weakest: Point | null; points: Point[]; pointCount: number };

const pct = (x: number) => `${Math.round(x * 100)} %`;

/**
 * A learner's mastery (masteryOf, the analyses' number): the mean over the points with evidence
 * and the weakest point with its figure; the few weakest points behind a disclosure, with a link
 * to the rest (the learner's export holds every point).
 */
export function LearnerMasteryCell({
  mastery,
  email,
  userId,
}: {
  mastery: Mastery | null;
  email: string;
  userId: string | null;
}) {
  if (!mastery || !mastery.pointCount) return <span className="text-slate-500">—</span>;
  const pointsText = `${mastery.pointCount} ${mastery.pointCount === 1 ? "point" : "points"}`;
  const more = mastery.pointCount - mastery.points.length;
  return (
    <div data-testid="learner-mastery" className="min-w-40">
      {mastery.mean === null ? (
        <span className="text-slate-500">no evidence yet</span>
      ) : (
        <span>
          <span className="font-medium tabular-nums">{pct(mastery.mean)}</span> mean
          {mastery.weakest && (
            <>
              {" · weakest "}
              <span data-testid="learner-weakest">
                {mastery.weakest.title} <span className="tabular-nums">{pct(mastery.weakest.mastery)}</span>
              </span>
            </>
          )}
        </span>
      )}
      <details className="mt-0.5">
        {/* The visible text starts the accessible name (WCAG 2.5.3, label in name). */}
        <summary className="cursor-pointer text-slate-700" aria-label={`${pointsText} of ${email}`}>
          {pointsText}
        </summary>
        <ul className="mt-1 space-y-0.5">
          {mastery.points.map((p) => (
            <li key={p.knowledgePointId} className="flex justify-between gap-3">
              <span>{p.title}</span>
              <span className="tabular-nums">
                {p.evidence ? `${pct(p.mastery)} (${p.evidence} answers and reviews)` : "no evidence yet"}
              </span>
            </li>
          ))}
        </ul>
        {more > 0 && userId && (
          <a
            className="text-slate-700 underline"
            href={`/api/admin/learners/${encodeURIComponent(userId)}/export`}
            aria-label={`${more} more points of ${email}: the learner's export`}
          >
            {more} more in the export
          </a>
        )}
      </details>
    </div>
  );
}
