import { getDb } from "@/server/db";

/**
 * Jobs, results and events are partitioned by time (server/jobs/partitions.ts). A plan reads the
 * job table's partitions, "AiRuntimeJob_<span>", each by its own copy of an index, named by
 * PostgreSQL after the partition; these map a plan back to the table and the index it was made from.
 */
export const onJobTable = (relation: string | undefined) => !!relation && /^AiRuntimeJob(_\w+)?$/.test(relation);

/** The indexes of AiRuntimeJob (as in schema.prisma) that these partition indexes are copies of, sorted, once each. */
export async function parentIndexes(names: (string | undefined)[]): Promise<string[]> {
  const rows = await getDb().$queryRaw<{ parent: string }[]>`
    SELECT DISTINCT coalesce(p.relname, c.relname) AS parent FROM pg_class c
    LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
    WHERE c.relname = ANY(${names.filter((n): n is string => !!n)}::text[])`;
  return rows.map((r) => r.parent).sort();
}

/** SQL: a table of information_schema that is not a partition of another (its rows are read through the parent). */
export const NOT_A_PARTITION = `table_name NOT IN (SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid)`;

/**
 * The job table's partitions that hold at least `min` rows. A plan may read a partition of a few
 * rows (the spans ahead, one just begun) with a sequential scan, as it should: "never a scan of
 * the jobs" is about the partitions that hold them.
 */
export async function fullPartitions(min = 1000): Promise<Set<string>> {
  const parts = await getDb().$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = '"AiRuntimeJob"'::regclass`;
  const full = new Set<string>();
  for (const { name } of parts) {
    const [row] = await getDb().$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM "${name}" LIMIT ${min}) s`,
    );
    if (row!.n >= min) full.add(name);
  }
  return full;
}
