import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { logFile } from "@/scripts/lib/embedded-db";
import { uid } from "../helpers/factories";
import { eventually } from "../helpers/eventually";

/**
 * The embedded PostgreSQL that `npm test` (like `npm run dev`) starts writes its log to
 * `<data folder>/log/postgresql.log`: a statement over EMBEDDED_PG_SLOW_MS and a failing one both
 * show up there with their text.
 */
describe("the embedded server's log", () => {
  it("records slow statements with their duration and errors with their statement", async () => {
    const db = getDb();
    const dir = (await db.$queryRaw<{ data_directory: string }[]>`SHOW data_directory`)[0]!.data_directory;
    const threshold = (
      await db.$queryRaw<{ log_min_duration_statement: string }[]>`SHOW log_min_duration_statement`
    )[0]!.log_min_duration_statement;
    expect(threshold).not.toBe("-1");
    const slow = uid("slow");
    const bad = uid("bad");
    await db.$queryRawUnsafe(`SELECT pg_sleep(0.3)::text, '${slow}' AS marker`);
    await expect(db.$queryRawUnsafe(`SELECT * FROM "${bad}"`)).rejects.toThrow();
    const text = await eventually(
      "both statements in the log",
      async () => {
        const t = fs.existsSync(logFile(dir)) ? fs.readFileSync(logFile(dir), "utf8") : "";
        return t.includes(slow) && t.includes(bad) ? t : null;
      },
      10_000,
    );
    expect(text).toMatch(new RegExp(`duration: \\d+\\.\\d+ ms.*${slow}`));
    expect(text).toMatch(new RegExp(`ERROR:.*relation "${bad}" does not exist`));
    expect(text).toMatch(new RegExp(`STATEMENT:.*${bad}`));
  });
});
