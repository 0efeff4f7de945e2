// `pipec run --workers N` (#18 item 5): q2 (HOP 10 s / 2 s COUNT by auction) and q4 (TUMBLE 10 s
// SUM/COUNT by bidder, ~100k keys) of the Nexmark-style suite over the bids split into 2 files
// (alternate lines: two partitions over the same event times, as two Kafka partitions would
// be), each run by `pipec run` with --workers 1 and --workers 2 in the same run, interleaved.
// Prints wall seconds (best of BENCH_WORKERS_ROUNDS, default 2), events per wall second, CPU
// seconds of the process (all its threads, and split into the main thread, each worker thread
// and the rest: V8's and libuv's threads) and the events/s ratio 2 workers / 1 worker against
// the goal (≥ 1.7×). Both worker counts must give the same answer as DuckDB's check (row count
// and a sum), else the run fails. The machine is shared: the load average is printed beside
// every figure; with other jobs on the two cores the ratio is depressed (a second worker only
// helps when a second core is free). Wall time includes compiling the spec (~0.3 s) and
// starting the workers. BENCH_WORKERS_EVENTS sets the size (default 1,000,000).
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { spawnSync } from 'node:child_process';
import { writeAuctions, writeBids } from './nexmark/generator.ts';
import { QUERIES, SOURCE } from './nexmark/queries.ts';
import { PIPEC, PRELOAD, runDuckDb } from './nexmark/engines.ts';

const N = Number(process.env.BENCH_WORKERS_EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_WORKERS_ROUNDS ?? 2);
const GOAL = 1.7;
const FILES = 2;
const load = (): string => loadavg()[0]!.toFixed(1);
const out = (s: string): void => void process.stdout.write(s);

/** Deals the lines of `file` out to FILES files, alternately. */
async function split(dir: string, file: string): Promise<void> {
  const outs = Array.from({ length: FILES }, (_, i) => createWriteStream(join(dir, `bids-${i}.ndjson`)));
  let i = 0;
  for await (const line of createInterface({ input: createReadStream(file) })) {
    const o = outs[i++ % FILES]!;
    if (!o.write(line + '\n')) await once(o, 'drain');
  }
  await Promise.all(outs.map((o) => new Promise((r) => o.end(r))));
}

interface Run {
  wallS: number;
  cpuS: number;
  /** CPU s of the main thread and of each worker thread (cpu-time-preload.mjs); null where not reported. */
  mainS: number | null;
  workersS: number[];
  rows: number;
  check: number;
  load: string;
}

function rowsOf(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function runPipec(dir: string, id: string, workers: number): Run {
  const q = QUERIES.find((x) => x.id === id)!;
  const spec = `${id}.pipe.sql`;
  writeFileSync(join(dir, spec), `PIPELINE workers_${id} WITH (checkpoint_interval = '1 h');\n${SOURCE.replace("path = 'bids.ndjson'", "path = 'bids-*.ndjson'")}\n${q.spec}\n`);
  const cpuFile = join(dir, `${id}.cpu`);
  const threadsFile = join(dir, `${id}.threads`);
  rmSync(threadsFile, { force: true });
  const l = load();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', PRELOAD, PIPEC, 'run', spec, '--workers', String(workers)], {
    cwd: dir,
    env: { ...process.env, PIPEC_BENCH_CPU_FILE: cpuFile, PIPEC_BENCH_THREADS_FILE: threadsFile, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const wallS = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`pipec run ${id} --workers ${workers} exited ${r.status}:\n${r.stderr.slice(-2000)}`);
  const answer = q.check(rowsOf(join(dir, 'out.ndjson')));
  const threads = readFileSync(threadsFile, 'utf8').split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]);
  const main = threads.find(([who]) => who === 'main');
  return {
    wallS,
    cpuS: Number(readFileSync(cpuFile, 'utf8')) / 1000,
    mainS: main ? Number(main[1]) / 1000 : null,
    workersS: threads.filter(([who]) => who === 'worker').map(([, ms]) => Number(ms) / 1000),
    ...answer,
    load: l,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-workers-'));
  await writeBids(join(dir, 'bids.ndjson'), N);
  await split(dir, join(dir, 'bids.ndjson'));
  // DuckDB's views name both tables; the queries here read only the bids.
  await writeAuctions(join(dir, 'auctions.ndjson'), N);
  out(`--workers 1 vs 2: ${N.toLocaleString('en')} Nexmark-style bids in ${FILES} files; best wall time of ${ROUNDS} interleaved rounds (load average ${load()} at the start)\n\n`);
  out('query | what | workers | wall s | events/s (wall) | CPU s | main thread CPU s | worker threads CPU s | other threads CPU s | load at start of run\n---|---|---|---|---|---|---|---|---|---\n');
  const wrong: string[] = [];
  const ratios: string[] = [];
  for (const id of ['q2', 'q4']) {
    const q = QUERIES.find((x) => x.id === id)!;
    // DuckDB reads the one file the parts were dealt from: the answer both worker counts must give.
    const d = await runDuckDb(dir, q);
    const best = new Map<number, Run>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const w of [1, 2]) {
        const r = runPipec(dir, id, w);
        if (r.rows !== d.rows || Math.abs(r.check - d.check) > 1e-6 * Math.max(1, Math.abs(d.check))) wrong.push(`${id} --workers ${w}: ${r.rows} rows / check ${r.check}, DuckDB ${d.rows} / ${d.check}`);
        const b = best.get(w);
        if (!b || r.wallS < b.wallS) best.set(w, r);
      }
    }
    for (const w of [1, 2]) {
      const r = best.get(w)!;
      // With one worker the engine runs on the main thread itself (no worker thread). "Other" is
      // V8's own threads (garbage collection, compilation) and libuv's I/O pool.
      const known = (r.mainS ?? 0) + r.workersS.reduce((a, b) => a + b, 0);
      const perThread = r.mainS === null ? 'n/a | n/a | n/a' : `${r.mainS.toFixed(2)} | ${r.workersS.map((x) => x.toFixed(2)).join(' + ') || '—'} | ${(r.cpuS - known).toFixed(2)}`;
      out(`${id} | ${q.what} | ${w} | ${r.wallS.toFixed(2)} | ${Math.round(N / r.wallS).toLocaleString('en')} | ${r.cpuS.toFixed(2)} | ${perThread} | ${r.load}\n`);
    }
    const one = best.get(1)!;
    const two = best.get(2)!;
    const ratio = one.wallS / two.wallS;
    ratios.push(`${id}: ${ratio.toFixed(2)}× events/s with 2 workers over 1 (goal ≥ ${GOAL}×${ratio >= GOAL ? '' : ', not met'}); CPU ${(two.cpuS / one.cpuS).toFixed(2)}× of 1 worker's`);
  }
  out(`\n${ratios.join('\n')}\n(load average now ${load()}; a load above 2 means the cores were shared, which depresses the ratio)\n`);
  rmSync(dir, { recursive: true, force: true });
  for (const w of wrong) out(`\nDIFFERENT ANSWERS ${w}\n`);
  if (wrong.length) process.exitCode = 1;
}

await main();
