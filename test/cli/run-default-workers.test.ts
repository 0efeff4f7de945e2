// `pipec run` without --workers, as a user runs it: over a large input split into files it runs
// on one thread per core (and says so on stderr), over a small one on one thread (silently);
// either way the sink holds the windows counted here independently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { pipec } from './run-cli.ts';
import { tempDir } from '../fixtures/runtime/run-helpers.ts';
import { AUTO_MIN_BYTES } from '../../targets/runtime/lib/workers/auto.ts';

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const SPEC = `PIPELINE auto;
CREATE SOURCE ev (k BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, pad STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'file', path = 'in/*.ndjson', format = 'ndjson');
CREATE VIEW agg AS SELECT k, window_start, COUNT(*) AS n FROM TUMBLE(ev, ts, INTERVAL '10' SECOND)
  GROUP BY k, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK out FROM agg WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

/** Writes `bytes` of events over 2 files (the same event times in both); returns the windows counted here. */
function writeInput(dir: string, bytes: number): string[] {
  mkdirSync(path.join(dir, 'in'));
  const pad = 'x'.repeat(200); // an unread column: bytes to read, little to compute
  const counts = new Map<string, number>();
  for (const f of ['a', 'b']) {
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < bytes / 2; i++) {
      const k = (i * 7 + (f === 'a' ? 0 : 3)) % 101;
      const ts = T0 + i;
      const line = JSON.stringify({ k, ts: iso(ts), pad });
      lines.push(line);
      size += line.length + 1;
      const key = `${k}|${iso(ts - ((ts - T0) % 10_000))}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    writeFileSync(path.join(dir, 'in', `${f}.ndjson`), lines.join('\n') + '\n');
  }
  return [...counts].map(([key, n]) => `${key}|${n}`).sort();
}

function runAndRead(dir: string): { stderr: string; rows: string[] } {
  writeFileSync(path.join(dir, 'p.pipe.sql'), SPEC);
  const r = pipec(['run', 'p.pipe.sql'], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  const rows = readFileSync(path.join(dir, 'out.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stderr: r.stderr, rows: rows.map((o) => `${o['k']}|${o['window_start']}|${o['n']}`).sort() };
}

test('pipec run over 64 MiB in 2 files runs on one thread per core and gives the windows counted here', { timeout: 180_000 }, () => {
  const dir = tempDir('pipec-auto-');
  const want = writeInput(dir, AUTO_MIN_BYTES + 1024 * 1024);
  const { stderr, rows } = runAndRead(dir);
  const threads = Math.min(availableParallelism(), 2);
  if (threads > 1) assert.match(stderr, new RegExp(`note: running on ${threads} worker threads`));
  else assert.doesNotMatch(stderr, /worker threads/);
  assert.deepEqual(rows, want);
});

test('pipec run over a small input stays on one thread, silently', { timeout: 60_000 }, () => {
  const dir = tempDir('pipec-auto-small-');
  const want = writeInput(dir, 200_000);
  const { stderr, rows } = runAndRead(dir);
  assert.doesNotMatch(stderr, /worker threads/);
  assert.deepEqual(rows, want);
});
