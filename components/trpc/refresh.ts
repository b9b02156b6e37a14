import type { QueryClient, QueryFilters } from "@tanstack/react-query";

/**
 * After a write: every matching query reads again, and no read that was already in flight can
 * have the last word. `invalidateQueries` alone does not do that for a query that has no data yet:
 * while its first load is in flight it joins that load instead of starting another, and that load,
 * sent before the write committed, answers without the write. (Seen in the console: a key created
 * while the page's first list load was still running never appeared in the list.) Cancelling
 * first drops such a read; the invalidation then starts a fresh one. No filter: every query.
 */
export async function refreshAfterWrite(queryClient: QueryClient, ...filters: QueryFilters[]) {
  const all = filters.length ? filters : [{}];
  await Promise.all(all.map((f) => queryClient.cancelQueries(f)));
  await Promise.all(all.map((f) => queryClient.invalidateQueries(f)));
}
