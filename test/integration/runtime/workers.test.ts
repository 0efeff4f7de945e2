// `pipec run --workers N` (targets/runtime/lib/workers/): the same spec over the same files with
// 1 and 2 workers gives the same sink rows (as a multiset), and both equal the windows counted
// here independently. The input is built so that a wrong partitioning or a per-worker watermark
// (instead of the minimum over every partition) changes the answer: file a (worker 0) is sparse
// and ends at once, file b (worker 1) is dense over the same event times and ends with rows late
// on its own partition. With worker 0's own watermark (+∞ as soon as a is read) the windows of
// the keys worker 0 owns would close before b's rows for them arrive, and those rows would be
// dropped as late. Also: a plan the workers cannot run yet is refused by name; kill -9 mid-run
// and resume gives the uninterrupted run's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readNdjson, tempDir, writeNdjson } from '../../fixtures/runtime/run-helpers.ts';
import { runSpecIn } from '../../fixtures/runtime/run-spec.ts';

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

const SPEC = `PIPELINE w WITH (checkpoint_interval = '1 h');
CREATE SOURCE ev (k BIGINT NOT NULL, v BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'file', path = 'in/*.ndjson', format = 'ndjson', idle_timeout = '1 h');
CREATE VIEW agg AS SELECT k, window_start, COUNT(*) AS n, SUM(v) AS total
  FROM TUMBLE(ev, ts, INTERVAL '10' SECOND) GROUP BY k, window_start, window_end EMIT ON WINDOW CLOSE ON LATE TO late_rows;
CREATE SINK out FROM agg WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
CREATE SINK late_rows WITH (connector = 'file', path = 'late.ndjson', format = 'ndjson');
`;

interface Ev {
  k: number;
  v: number;
  ts: number;
}

/** a: one event a second for 100 s; b: 500 a second over the same 100 s, then 3 rows 30 s behind it. */
function input(): { a: Ev[]; b: Ev[]; late: Ev[] } {
  const a: Ev[] = [];
  for (let s = 0; s < 100; s++) a.push({ k: s % 13, v: s, ts: T0 + s * 1000 });
  const b: Ev[] = [];
  for (let i = 0; i < 50_000; i++) b.push({ k: (i * 7) % 13, v: i % 1000, ts: T0 + i * 2 });
  const late = [0, 1, 2].map((j) => ({ k: j, v: 1_000_000, ts: T0 + 70_000 + j }));
  return { a, b, late };
}

function writeInput(dir: string): void {
  const { a, b, late } = input();
  const rows = (evs: Ev[]): unknown[] => evs.map((e) => ({ k: e.k, v: e.v, ts: iso(e.ts) }));
  writeNdjson(path.join(dir, 'in', 'a.ndjson'), rows(a));
  writeNdjson(path.join(dir, 'in', 'b.ndjson'), rows([...b, ...late]));
}

/** The windows as counted here: every on-time event in its 10 s window, per key. */
function expected(): string[] {
  const { a, b } = input();
  const w = new Map<string, { n: number; total: number }>();
  for (const e of [...a, ...b]) {
    const key = `${e.k}|${iso(e.ts - ((e.ts - T0) % 10_000))}`;
    const x = w.get(key) ?? { n: 0, total: 0 };
    x.n++;
    x.total += e.v;
    w.set(key, x);
  }
  return [...w].map(([key, x]) => `${key}|${x.n}|${x.total}`).sort();
}

const canon = (rows: Record<string, unknown>[]): string[] => rows.map((r) => `${r['k']}|${r['window_start']}|${r['n']}|${r['total']}`).sort();

async function runIn(workers: number): Promise<{ out: string[]; late: Record<string, unknown>[] }> {
  const dir = tempDir('pipec-workers-');
  writeFileSync(path.join(dir, 'p.pipe.sql'), SPEC);
  mkdirSync(path.join(dir, 'in'));
  writeInput(dir);
  let err = '';
  const code = await runSpecIn(dir, { workers, stderr: (t) => (err += t) });
  assert.equal(code, 0, err);
  return { out: canon(readNdjson(path.join(dir, 'out.ndjson'))), late: readNdjson(path.join(dir, 'late.ndjson')) };
}

test('--workers 2 gives the rows of --workers 1, and both the windows counted independently', { timeout: 120_000 }, async () => {
  const want = expected();
  const one = await runIn(1);
  const two = await runIn(2);
  assert.deepEqual(one.out, want);
  assert.deepEqual(two.out, want);
  // The rows late on b's partition are late against the minimum over a (ended) and b.
  const lateKeys = (rows: Record<string, unknown>[]): number[] => rows.map((r) => Number(r['k'])).sort();
  assert.deepEqual(lateKeys(one.late), [0, 1, 2]);
  assert.deepEqual(lateKeys(two.late), [0, 1, 2]);
});

test('--workers 2 refuses, by operator, a plan it cannot partition yet', async () => {
  const dir = tempDir('pipec-workers-');
  writeFileSync(
    path.join(dir, 'p.pipe.sql'),
    SPEC.replace(/CREATE VIEW agg[\s\S]*$/, `CREATE VIEW g AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k;\nCREATE VIEW gg AS SELECT n, COUNT(*) AS keys FROM g GROUP BY n;\nCREATE SINK out FROM gg WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');\n`),
  );
  mkdirSync(path.join(dir, 'in'));
  writeInput(dir);
  let err = '';
  const code = await runSpecIn(dir, { workers: 2, stderr: (t) => (err += t) });
  assert.equal(code, 2);
  assert.match(err, /error\[workers-unsupported\]: --workers 2 cannot run 'gg[^']*': a stateful operator fed by the stateful operator 'g/);
  assert.ok(!existsSync(path.join(dir, 'out.ndjson')), 'nothing ran');
});

// SESSION windows: sessions merge only within one PARTITION BY key, so each key's sessions are
// one worker's. Events of key k come every (k + 1) s with a pause of 20 s in the middle, so a
// 3 s gap splits keys 0-2 into sessions at every pause and keeps longer runs apart elsewhere.
const SESSION_GAP = 3000;
function sessionEvents(): Ev[][] {
  const files: Ev[][] = [[], [], []];
  for (let k = 0; k < 6; k++) {
    let t = T0 + k * 7;
    for (let i = 0; i < 400; i++) {
      t += (k + 1) * 1000 + (i === 200 ? 20_000 : 0);
      files[(i + k) % 3]!.push({ k, v: i, ts: t });
    }
  }
  // Each file in event-time order: watermarks only rise (nothing late).
  return files.map((f) => f.sort((a, b) => a.ts - b.ts));
}

/** The sessions as formed here: per key, runs of events less than the gap apart. */
function expectedSessions(): string[] {
  const byKey = new Map<number, Ev[]>();
  for (const e of sessionEvents().flat()) byKey.set(e.k, [...(byKey.get(e.k) ?? []), e]);
  const out: string[] = [];
  for (const [k, evs] of byKey) {
    evs.sort((a, b) => a.ts - b.ts);
    let start = evs[0]!.ts;
    let last = start;
    let n = 0;
    let total = 0;
    const close = (): void => void out.push(`${k}|${iso(start)}|${iso(last + SESSION_GAP)}|${n}|${total}`);
    for (const e of evs) {
      if (e.ts > last + SESSION_GAP) {
        close();
        start = e.ts;
        n = 0;
        total = 0;
      }
      last = e.ts;
      n++;
      total += e.v;
    }
    close();
  }
  return out.sort();
}

async function runSessions(workers: number, emit: 'ON WINDOW CLOSE' | 'CHANGES'): Promise<Record<string, unknown>[]> {
  const dir = tempDir('pipec-workers-session-');
  const sink = emit === 'CHANGES' ? "path = 'out.parquet', format = 'parquet'" : "path = 'out.ndjson', format = 'ndjson'";
  writeFileSync(
    path.join(dir, 'p.pipe.sql'),
    SPEC.replace(/CREATE VIEW agg[\s\S]*$/, `CREATE VIEW s AS SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total FROM SESSION(ev PARTITION BY k, ts, INTERVAL '${SESSION_GAP / 1000}' SECOND) GROUP BY k, window_start, window_end EMIT ${emit};\nCREATE SINK out FROM s WITH (connector = 'file', ${sink});\n`),
  );
  mkdirSync(path.join(dir, 'in'));
  sessionEvents().forEach((f, i) => writeNdjson(path.join(dir, 'in', `f${i}.ndjson`), f.map((e) => ({ k: e.k, v: e.v, ts: iso(e.ts) }))));
  let err = '';
  const code = await runSpecIn(dir, { workers, stderr: (t) => (err += t) });
  assert.equal(code, 0, err);
  if (emit !== 'CHANGES') return readNdjson(path.join(dir, 'out.ndjson'));
  const { parquetReadObjects } = await import('hyparquet');
  // The sink writes a folder of part files, in order.
  const rows: Record<string, unknown>[] = [];
  for (const part of readdirSync(path.join(dir, 'out.parquet')).filter((f) => f.endsWith('.parquet')).sort()) {
    const bytes = readFileSync(path.join(dir, 'out.parquet', part));
    const read = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as Record<string, unknown>[];
    // Parquet gives timestamps as Dates: in the NDJSON sink's text, as the expectation has them.
    for (const r of read) rows.push({ ...r, window_start: iso((r['window_start'] as Date).getTime()), window_end: iso((r['window_end'] as Date).getTime()) });
  }
  return rows;
}

const sessionRow = (r: Record<string, unknown>): string => `${r['k']}|${r['window_start']}|${r['window_end']}|${r['n']}|${r['total']}`;

test('--workers 2 runs SESSION windows: the sessions of --workers 1, and of an independent count', { timeout: 120_000 }, async () => {
  const want = expectedSessions();
  assert.ok(want.length > 12, 'the pauses split sessions');
  assert.deepEqual((await runSessions(1, 'ON WINDOW CLOSE')).map(sessionRow).sort(), want);
  assert.deepEqual((await runSessions(2, 'ON WINDOW CLOSE')).map(sessionRow).sort(), want);
});

test('--workers 2, SESSION EMIT CHANGES: a merged session\'s deletes reach a Parquet sink as -D rows', { timeout: 120_000 }, async () => {
  // The rows are upserts by group key + window_start + window_end, and a session whose bounds
  // move is deleted ('-D'): the final table is the closed sessions. The row kinds cross from the
  // workers to the sink's thread (a kind is a property of the row's array, not one of its cells).
  const fold = (rows: Record<string, unknown>[]): { final: string[]; deletes: number } => {
    const table = new Map<string, string>();
    let deletes = 0;
    for (const r of rows) {
      const key = `${r['k']}|${r['window_start']}|${r['window_end']}`;
      if (r['op'] === '-D') {
        deletes++;
        assert.ok(table.delete(key), `a -D of a row that is there: ${key}`);
      } else table.set(key, sessionRow(r));
    }
    return { final: [...table.values()].sort(), deletes };
  };
  const one = fold(await runSessions(1, 'CHANGES'));
  const two = fold(await runSessions(2, 'CHANGES'));
  assert.deepEqual(one.final, expectedSessions());
  assert.deepEqual(two.final, expectedSessions());
  assert.ok(one.deletes > 0 && two.deletes > 0, 'sessions that grew were deleted and inserted again');
  // Not equal counts: a key's events come from several files, and how many of them move a
  // session's bounds depends on the order they meet in (gap 10: 0, 5, 3 moves once; 0, 3, 5 twice),
  // which with two workers is the threads' timing. Every -D deleted a row that was there.
});

test('--workers 2 runs a GROUP BY without a window: per key the changelog of one thread, the same final table', { timeout: 120_000 }, async () => {
  // The sink is an upsert changelog: per key, the last row is the group's final value, so a
  // worker that sent one key's updates out of order would leave an earlier count there.
  const run = async (workers: number): Promise<Map<string, string>> => {
    const dir = tempDir('pipec-workers-group-');
    writeFileSync(
      path.join(dir, 'p.pipe.sql'),
      SPEC.replace(/CREATE VIEW agg[\s\S]*$/, `CREATE VIEW g AS SELECT k, COUNT(*) AS n, SUM(v) AS total, MAX(v) AS top FROM ev GROUP BY k;\nCREATE SINK out FROM g WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');\n`),
    );
    mkdirSync(path.join(dir, 'in'));
    writeInput(dir);
    let err = '';
    const code = await runSpecIn(dir, { workers, stderr: (t) => (err += t) });
    assert.equal(code, 0, err);
    const last = new Map<string, string>();
    const seen = new Map<string, number>();
    for (const r of readNdjson(path.join(dir, 'out.ndjson'))) {
      const k = String(r['k']);
      // Counts of one key only grow, row after row: the order of one thread.
      assert.ok(Number(r['n']) > (seen.get(k) ?? 0), `key ${k}: count ${r['n']} after ${seen.get(k)}`);
      seen.set(k, Number(r['n']));
      last.set(k, `${r['n']}|${r['total']}|${r['top']}`);
    }
    return last;
  };
  const { a, b, late } = input();
  const want = new Map<string, string>();
  for (let k = 0; k < 13; k++) {
    const evs = [...a, ...b, ...late].filter((e) => e.k === k);
    if (evs.length) want.set(String(k), `${evs.length}|${evs.reduce((n, e) => n + e.v, 0)}|${Math.max(...evs.map((e) => e.v))}`);
  }
  assert.deepEqual(await run(1), want);
  assert.deepEqual(await run(2), want);
});

test('--workers 2 runs an interval join: both sides by the join key, the pairs of --workers 1 and of a count here', { timeout: 120_000 }, async () => {
  // A self-join of the two files' events: every pair of one key whose right row is at most
  // 300 ms after the left one. The sides' rows of one key meet in one worker; the join's
  // watermark (what frees buffered rows) is the minimum over every worker's partitions.
  const run = async (workers: number): Promise<string[]> => {
    const dir = tempDir('pipec-workers-join-');
    writeFileSync(
      path.join(dir, 'p.pipe.sql'),
      SPEC.replace(/CREATE VIEW agg[\s\S]*$/, `CREATE VIEW j AS SELECT a.k, a.v, b.v AS w FROM ev AS a JOIN ev AS b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '0.3' SECOND;\nCREATE SINK out FROM j WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');\n`),
    );
    mkdirSync(path.join(dir, 'in'));
    const { a, b } = input();
    // Fewer rows than the window test: the pairs grow with the square of a key's rows per 300 ms.
    writeNdjson(path.join(dir, 'in', 'a.ndjson'), a.map((e) => ({ k: e.k, v: e.v, ts: iso(e.ts) })));
    writeNdjson(path.join(dir, 'in', 'b.ndjson'), b.filter((_, i) => i % 20 === 0).map((e) => ({ k: e.k, v: e.v, ts: iso(e.ts) })));
    let err = '';
    const code = await runSpecIn(dir, { workers, stderr: (t) => (err += t) });
    assert.equal(code, 0, err);
    return readNdjson(path.join(dir, 'out.ndjson')).map((r) => `${r['k']}|${r['v']}|${r['w']}`).sort();
  };
  const { a, b } = input();
  const evs = [...a, ...b.filter((_, i) => i % 20 === 0)];
  const want: string[] = [];
  for (const l of evs) for (const r of evs) if (l.k === r.k && r.ts >= l.ts && r.ts <= l.ts + 300) want.push(`${l.k}|${l.v}|${r.v}`);
  want.sort();
  assert.ok(want.length > evs.length, `${want.length} pairs from ${evs.length} rows`);
  assert.deepEqual(await run(1), want);
  assert.deepEqual(await run(2), want);
});

const RUN_SPEC = path.join(import.meta.dirname, '..', '..', 'fixtures', 'runtime', 'run-spec.ts');

function startRun(dir: string, workers: number, ck: string): { done: Promise<{ code: number | null; signal: string | null; stderr: string }>; kill: () => void } {
  const child = spawn(process.execPath, ['--import', 'tsx', RUN_SPEC, dir, String(workers), ck], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return { done: new Promise((r) => child.on('exit', (code, signal) => r({ code, signal, stderr }))), kill: () => child.kill('SIGKILL') };
}

const ckSeq = (ck: string): number => {
  try {
    return (JSON.parse(readFileSync(path.join(ck, 'checkpoint.json'), 'utf8')) as { seq: number }).seq;
  } catch {
    return 0;
  }
};

test('--workers 2: kill -9 after a checkpoint, resume: the output of an uninterrupted run', { timeout: 300_000 }, async () => {
  // Many files and windows, checkpoints every 100 ms: the kill lands mid-run, after a checkpoint.
  const spec = SPEC.replace("checkpoint_interval = '1 h'", "checkpoint_interval = '100 ms'");
  const make = (): string => {
    const dir = tempDir('pipec-workers-kill-');
    writeFileSync(path.join(dir, 'p.pipe.sql'), spec);
    mkdirSync(path.join(dir, 'in'));
    for (let f = 0; f < 4; f++) {
      const rows: unknown[] = [];
      for (let i = 0; i < 60_000; i++) rows.push({ k: (i * 31 + f) % 5000, v: i % 977, ts: iso(T0 + i * 10 + f) });
      writeNdjson(path.join(dir, 'in', `f${f}.ndjson`), rows);
    }
    return dir;
  };
  const refDir = make();
  const ref = await startRun(refDir, 2, path.join(refDir, 'ck')).done;
  assert.equal(ref.code, 0, ref.stderr);
  const want = readFileSync(path.join(refDir, 'out.ndjson'), 'utf8').split('\n').filter(Boolean).sort();
  assert.ok(want.length > 10_000);

  const dir = make();
  const ck = path.join(dir, 'ck');
  const p = startRun(dir, 2, ck);
  const t0 = Date.now();
  while (ckSeq(ck) < 2 && Date.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 10));
  p.kill();
  const killed = await p.done;
  assert.equal(killed.signal, 'SIGKILL', `the run ended before the kill: ${killed.stderr}`);
  const partial = existsSync(path.join(dir, 'out.ndjson')) ? readFileSync(path.join(dir, 'out.ndjson'), 'utf8').split('\n').filter(Boolean).length : 0;
  assert.ok(partial < want.length, 'killed mid-run');
  const resumed = await startRun(dir, 2, ck).done;
  assert.equal(resumed.code, 0, resumed.stderr);
  const got = readFileSync(path.join(dir, 'out.ndjson'), 'utf8').split('\n').filter(Boolean).sort();
  assert.equal(got.length, want.length);
  assert.deepEqual(got, want);
  rmSync(dir, { recursive: true, force: true });
  rmSync(refDir, { recursive: true, force: true });
});
