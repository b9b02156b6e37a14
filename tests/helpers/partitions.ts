/**
 * SQL: a table of information_schema that is not a partition of another (events and results are
 * partitioned by time, server/jobs/partitions.ts; their rows are read through the parent).
 */
export const NOT_A_PARTITION = `table_name NOT IN (SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid)`;
