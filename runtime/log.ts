/** Structured logs: one JSON object per line, one line per job event, for any log shipper to read. */
export type Logger = (event: string, fields?: Record<string, unknown>, level?: "info" | "warn" | "error") => void;

export function createLogger(
  base: Record<string, unknown>,
  write: (line: string) => void = (l) => process.stdout.write(l + "\n"),
): Logger {
  return (event, fields = {}, level = "info") => {
    write(JSON.stringify({ time: new Date().toISOString(), level, event, ...base, ...fields }));
  };
}
