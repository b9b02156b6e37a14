/** Latency samples in ms → percentiles. */
export function percentiles(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN);
  const round = (n: number) => Math.round(n * 100) / 100;
  return { n: s.length, p50: round(at(50)), p95: round(at(95)), p99: round(at(99)), max: round(s.at(-1) ?? NaN) };
}

export function median(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
}
