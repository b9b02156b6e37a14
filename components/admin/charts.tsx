import { formatAxis } from "@/components/time";

/** Plain SVG charts: enough for throughput and latency over one window, no chart library. */
type Point = { start: string; [k: string]: number | string | null };

const W = 640;
const H = 160;
const PAD = { l: 40, r: 8, t: 8, b: 20 };

function axisLabel(iso: string, bucketMinutes: number) {
  return formatAxis(iso, bucketMinutes >= 360);
}

function ticks(points: Point[], bucketMinutes: number) {
  const step = Math.max(1, Math.floor(points.length / 6));
  return points.map((p, i) => ({ i, label: axisLabel(p.start, bucketMinutes) })).filter((t) => t.i % step === 0);
}

/** Stacked bars: succeeded below, failed above, per bucket. */
export function ThroughputChart({
  points,
  bucketMinutes,
  label,
}: {
  points: Point[];
  bucketMinutes: number;
  label: string;
}) {
  const max = Math.max(1, ...points.map((p) => Number(p.succeeded) + Number(p.failed)));
  const bw = (W - PAD.l - PAD.r) / Math.max(1, points.length);
  const y = (v: number) => PAD.t + (H - PAD.t - PAD.b) * (1 - v / max);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-40 w-full" role="img" aria-label={label}>
      <text x={PAD.l - 4} y={PAD.t + 8} textAnchor="end" className="fill-slate-500 text-[10px]">
        {max}
      </text>
      <text x={PAD.l - 4} y={H - PAD.b} textAnchor="end" className="fill-slate-500 text-[10px]">
        0
      </text>
      <line x1={PAD.l} x2={W - PAD.r} y1={H - PAD.b} y2={H - PAD.b} className="stroke-slate-300" />
      {points.map((p, i) => {
        const s = Number(p.succeeded);
        const f = Number(p.failed);
        const x = PAD.l + i * bw + 1;
        return (
          <g key={p.start}>
            <title>{`${axisLabel(p.start, bucketMinutes)}: ${s} succeeded, ${f} failed`}</title>
            <rect x={x} width={Math.max(1, bw - 2)} y={y(s)} height={y(0) - y(s)} className="fill-emerald-500" />
            <rect x={x} width={Math.max(1, bw - 2)} y={y(s + f)} height={y(s) - y(s + f)} className="fill-rose-500" />
          </g>
        );
      })}
      {ticks(points, bucketMinutes).map((t) => (
        <text key={t.i} x={PAD.l + t.i * bw} y={H - 6} className="fill-slate-500 text-[10px]">
          {t.label}
        </text>
      ))}
    </svg>
  );
}

/** p50 and p95 lines of one latency (seconds); gaps where a bucket had no data. */
export function LatencyChart({
  points,
  p50,
  p95,
  bucketMinutes,
  label,
}: {
  points: Point[];
  p50: string;
  p95: string;
  bucketMinutes: number;
  label: string;
}) {
  const values = points.flatMap((p) => [p[p50], p[p95]]).filter((v): v is number => typeof v === "number");
  const max = Math.max(0.001, ...values);
  const step = (W - PAD.l - PAD.r) / Math.max(1, points.length - 1);
  const y = (v: number) => PAD.t + (H - PAD.t - PAD.b) * (1 - v / max);
  const path = (key: string) =>
    points
      .map((p, i) => (typeof p[key] === "number" ? `${PAD.l + i * step},${y(p[key] as number)}` : null))
      .reduce<string[]>((segs, pt, i, all) => {
        if (pt) segs.push(`${i > 0 && all[i - 1] ? "L" : "M"}${pt}`);
        return segs;
      }, [])
      .join(" ");
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-40 w-full" role="img" aria-label={label}>
      <text x={PAD.l - 4} y={PAD.t + 8} textAnchor="end" className="fill-slate-500 text-[10px]">
        {max < 1 ? `${Math.round(max * 1000)}ms` : `${max.toFixed(1)}s`}
      </text>
      <line x1={PAD.l} x2={W - PAD.r} y1={H - PAD.b} y2={H - PAD.b} className="stroke-slate-300" />
      <path d={path(p95)} className="fill-none stroke-amber-500" strokeWidth={2} />
      <path d={path(p50)} className="fill-none stroke-indigo-600" strokeWidth={2} />
      {points.map((p, i) =>
        typeof p[p50] === "number" && points.length < 80 ? (
          <circle key={p.start} cx={PAD.l + i * step} cy={y(p[p50] as number)} r={2} className="fill-indigo-600" />
        ) : null,
      )}
      {ticks(points, bucketMinutes).map((t) => (
        <text key={t.i} x={PAD.l + t.i * step} y={H - 6} className="fill-slate-500 text-[10px]">
          {t.label}
        </text>
      ))}
    </svg>
  );
}

export function Legend({ items }: { items: [string, string][] }) {
  return (
    <div className="flex gap-3 text-xs text-slate-600">
      {items.map(([label, color]) => (
        <span key={label} className="inline-flex items-center gap-1">
          <span className={`h-2 w-3 rounded-sm ${color}`} aria-hidden />
          {label}
        </span>
      ))}
    </div>
  );
}
