-- Six-hour time rollups for the 7d overview (issue 26, item 3). The fold writes every width from
-- now on, and the buckets already folded are summed here from the half-hour rows (kept 9 days,
-- so the whole week is there). 360 is a multiple of 30 and both bin from the same origin: exact.
INSERT INTO "JobTimeRollup" (width, start, kind, idx, n)
SELECT 360, date_bin(interval '360 minutes', start, timestamp '2000-01-01'), kind, idx, sum(n)
FROM "JobTimeRollup" WHERE width = 30
GROUP BY 2, 3, 4
ON CONFLICT (width, start, kind, idx) DO UPDATE SET n = EXCLUDED.n;
