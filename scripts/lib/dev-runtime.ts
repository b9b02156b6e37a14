/**
 * DEV_RUNTIME: whether `npm run dev` starts the bundled reference Runtime. `off` leaves the jobs to
 * a Runtime of your own (a team testing theirs does not want ours to take its jobs); the local
 * Runtime key is still written to .data/runtime-key for it. Anything else is refused, not guessed.
 */
export function devRuntimeMode(value: string | undefined): "on" | "off" {
  const v = (value ?? "on").trim().toLowerCase();
  if (v === "on" || v === "off") return v;
  throw new Error(`DEV_RUNTIME must be "on" (default) or "off", not ${JSON.stringify(value)}`);
}
