// Batch-at-a-time sources (io/row-batch.ts, `SourceSink.rowBatch`) must not change a run's
// answer: the same NDJSON file through the real file source, once handing the runner batches
// and once row by row (the source's sink without `rowBatch`), gives byte-identical sink files,
// late rows and dead letters — TUMBLE with ON LATE TO, HOP, SESSION and a pass-through filter.
// The input puts late rows right behind the rows whose watermark closes their window, NULL
// event times and undecodable lines among them, inside one batch: a batch that let the
// watermark wait until its end would keep those late rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { registerSource } from '../../../targets/runtime/lib/connectors.ts';
import { FileSource } from '../../../targets/runtime/lib/io/file-source.ts';
import type { SourceSink } from '../../../targets/runtime/lib/io/source-types.ts';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';

const SPEC = `PIPELINE batch_eq WITH (checkpoint_interval = '1 h');
CREATE SOURCE ev (
  k  STRING,
  v  BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');

CREATE VIEW t AS
SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
FROM TUMBLE(ev, ts, INTERVAL '10' SECOND)
GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE TO late_rows;
CREATE SINK late_rows WITH (connector = 'file', path = 'late.ndjson', format = 'ndjson');
CREATE SINK t_out FROM t WITH (connector = 'file', path = 't.ndjson', format = 'ndjson');

CREATE VIEW h AS
SELECT k, window_start, window_end, COUNT(*) AS n
FROM HOP(ev, ts, INTERVAL '2' SECOND, INTERVAL '6' SECOND)
GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;
CREATE SINK h_out FROM h WITH (connector = 'file', path = 'h.ndjson', format = 'ndjson');

CREATE VIEW s AS
SELECT k, window_start, window_end, SUM(v) AS total
FROM SESSION(ev PARTITION BY k, ts, INTERVAL '3' SECOND)
GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;
CREATE SINK s_out FROM s WITH (connector = 'file', path = 's.ndjson', format = 'ndjson');

CREATE VIEW big AS SELECT k, v, ts FROM ev WHERE v > 900;
CREATE SINK big_out FROM big WITH (connector = 'file', path = 'big.ndjson', format = 'ndjson');
`;

const BASE = Date.UTC(2026, 0, 1);

/** The input lines, and the (k, v) of the rows planted as late (worked out by hand below). */
function input(): { lines: string[]; late: string[] } {
  let seed = 11;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296;
  };
  const lines: string[] = [];
  const late: string[] = [];
  let t = 0;
  for (let i = 0; i < 6000; i++) {
    t += Math.floor(rnd() * 40);
    // Out of order by up to 1.5 s: within the 2 s delay, never late.
    const ts = BASE + t - Math.floor(rnd() * 1500);
    const k = `k${Math.floor(rnd() * 7)}`;
    const v = Math.floor(rnd() * 1000);
    lines.push(JSON.stringify({ k, v, ts }));
    if (i % 500 === 250) {
      // Right behind it: a row 14 s back. The watermark is then above t - 3.5 s, so the TUMBLE
      // window of t - 14 s (it ends by t - 4 s) has fired: a late row, whatever its key.
      const back = BASE + t - 14_000;
      lines.push(JSON.stringify({ k: 'late', v: i, ts: back }));
      late.push(`late/${i}`);
    }
    if (i % 700 === 3) lines.push(JSON.stringify({ k, v, ts: null })); // NULL event time: a dead letter
    if (i % 900 === 5) lines.push('{"k": "x", "v": 1, "ts": '); // not JSON: a dead letter
    if (i % 1100 === 7) lines.push(JSON.stringify({ k, v: 'many', ts })); // not a BIGINT: a dead letter
  }
  return { lines, late };
}

let mode: 'batches' | 'rows' = 'batches';
let batches = 0;
let batchedRows = 0;
// The real file source; row by row, its sink has no `rowBatch` (RowBatch then hands rows one by one).
registerSource('file', (def, out, ctx) => {
  let sink: SourceSink = out;
  if (mode === 'rows') sink = { ...out, rowBatch: undefined };
  else
    sink = {
      ...out,
      rowBatch: (p, rows, from, to, at) => {
        batches++;
        batchedRows += to - from;
        out.rowBatch!(p, rows, from, to, at);
      },
    };
  return new FileSource(def, ctx.baseDir, sink);
});

/** Every file the run wrote (sinks, dead letters), by name. */
async function run(lines: string[]): Promise<Record<string, string>> {
  const dir = tempDir('pipec-batch-eq-');
  writeFileSync(path.join(dir, 'p.pipe.sql'), SPEC);
  writeFileSync(path.join(dir, 'ev.ndjson'), lines.join('\n') + '\n');
  const r = await compileFile('p.pipe.sql', { cwd: dir, env: { get: () => undefined } });
  assert.deepEqual(
    r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message),
    [],
  );
  let err = '';
  const x = await runPipeline(r.plan!, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: (t) => (err += t) });
  assert.equal(x.exitCode, 0, err);
  const files: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) if (f.endsWith('.ndjson') && f !== 'ev.ndjson') files[f] = readFileSync(path.join(dir, f), 'utf8');
  return files;
}

test('a source handing batches gives the same sink rows, late rows and dead letters as row by row', async () => {
  const { lines, late } = input();
  mode = 'rows';
  const byRow = await run(lines);
  mode = 'batches';
  const byBatch = await run(lines);
  // Batches were used, with many rows each (not one row per call).
  assert.ok(batches > 0 && batchedRows / batches > 50, `${batches} batches of ${batchedRows} rows`);
  assert.deepEqual(Object.keys(byBatch), Object.keys(byRow));
  for (const f of Object.keys(byRow)) assert.equal(byBatch[f], byRow[f], `${f} differs`);

  // The planted rows are exactly the late ones, in input order.
  const lateRows = byBatch['late.ndjson']!.trim().split('\n').map((l) => JSON.parse(l) as { k: string; v: number; late_by_ms: number });
  assert.deepEqual(
    lateRows.map((r) => `${r.k}/${r.v}`),
    late,
  );
  assert.ok(lateRows.every((r) => r.late_by_ms > 0));
  // Dead letters: 9 NULL event times, 7 broken lines, 6 bad BIGINTs, in input order (by line).
  const dead = byBatch['batch_eq.dead-letters.ndjson']!.trim().split('\n').map((l) => JSON.parse(l) as { line: number; reason: string; record: string });
  assert.equal(dead.length, 9 + 7 + 6);
  assert.equal(dead.filter((d) => d.reason.includes('is NULL')).length, 9);
  assert.deepEqual(
    dead.map((d) => d.line),
    dead.map((d) => d.line).sort((a, b) => a - b),
  );
  // Each dead letter names its own line: the line it quotes, or (a NULL event time, found after
  // decoding) the line with that NULL.
  for (const d of dead) {
    if (d.reason.includes('is NULL')) assert.match(lines[d.line - 1]!, /"ts":null/);
    else assert.equal(d.record, lines[d.line - 1]);
  }
  // The windows fired, over the two minutes of input (7 keys, and 'late' in TUMBLE).
  const count = (f: string): number => byBatch[f]!.trim().split('\n').length;
  assert.ok(count('t.ndjson') > 80 && count('h.ndjson') > 400 && count('s.ndjson') >= 7 && count('big.ndjson') > 500, JSON.stringify(Object.keys(byBatch).map((f) => [f, count(f)])));
});
