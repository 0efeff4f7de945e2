// Cold start and memory figures of the Nexmark-style suite (#18 item 6), each beside a baseline
// measured in the same run:
// - start-up to first record: spawn `pipec run` (compiles the spec, then runs it) and the built
//   bundle (`node <bundle>/pipeline.mjs`) on a one-row file → stdout sink, until the row's line
//   arrives on stdout, and each process's CPU ms; beside `node -e` printing one line. Median of
//   several spawns.
// - RSS per million open keys: `pipec run` of a TUMBLE 1 h COUNT/SUM by key over a followed file
//   of 1M distinct keys in one window (so every key stays open), RSS read from /proc once the
//   state gauge shows every key, minus the same pipeline's RSS over one key; beside a plain
//   node process's RSS growth for a Map of 1M number keys → a [sum, count] pair.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PIPEC, PRELOAD } from './engines.ts';
import { writeDistinctKeys } from './generator.ts';

const MiB = 1024 * 1024;

interface Start {
  /** Wall ms from spawn to the row's line on stdout, and to exit. */
  firstMs: number;
  exitMs: number;
  /** The process's own CPU ms over its whole life (user + system): steadier under load. */
  cpuMs: number;
}

/** Spawns node with `args` (CPU time preloaded) until stdout has a line matching `ready`, then exit. */
function timeToLine(args: string[], cwd: string, ready: RegExp): Promise<Start> {
  return new Promise((resolve, reject) => {
    const cpuFile = join(cwd, 'start.cpu');
    const t0 = performance.now();
    let firstMs = -1;
    let out = '';
    const child = spawn(process.execPath, ['--import', PRELOAD, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', PIPEC_BENCH_CPU_FILE: cpuFile } });
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      if (firstMs >= 0) return;
      out += b.toString('utf8');
      if (ready.test(out)) firstMs = performance.now() - t0;
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || firstMs < 0) reject(new Error(`node ${args.join(' ')} exited ${code} (first line: ${firstMs >= 0}):\n${err.slice(-1500)}`));
      else resolve({ firstMs, exitMs: performance.now() - t0, cpuMs: Number(readFileSync(cpuFile, 'utf8')) });
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface ColdStart {
  pipecRun: Start;
  bundle: Start;
  node: Start;
}

export async function coldStart(dir: string, rounds: number): Promise<ColdStart> {
  writeFileSync(join(dir, 'one.ndjson'), '{"id":7,"ts":"2026-01-01 00:00:00.000"}\n');
  writeFileSync(
    join(dir, 'cold.pipe.sql'),
    `PIPELINE cold;
CREATE SOURCE ev (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL) WITH (connector = 'file', path = 'one.ndjson', format = 'ndjson');
CREATE VIEW v AS SELECT id, ts FROM ev WHERE id > 0;
CREATE SINK out FROM v WITH (connector = 'stdout', format = 'ndjson');
`,
  );
  const b = spawnSync(process.execPath, [PIPEC, 'build', 'cold.pipe.sql', '--target', 'runtime', '--out', 'cold-gen', '--bundle', 'cold-bundle'], { cwd: dir, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`pipec build of the cold-start spec exited ${b.status}:\n${b.stderr.slice(-1500)}`);
  const row = /"id":7/;
  const runs = { pipecRun: [] as Start[], bundle: [] as Start[], node: [] as Start[] };
  // Interleaved, so a burst of load elsewhere hits each kind alike.
  for (let i = 0; i < rounds; i++) {
    runs.node.push(await timeToLine(['-e', 'console.log(\'{"id":7}\')'], dir, row));
    runs.pipecRun.push(await timeToLine([PIPEC, 'run', 'cold.pipe.sql'], dir, row));
    runs.bundle.push(await timeToLine([join('cold-bundle', 'cold', 'pipeline.mjs')], dir, row));
  }
  const med = (xs: Start[]): Start => ({ firstMs: median(xs.map((x) => x.firstMs)), exitMs: median(xs.map((x) => x.exitMs)), cpuMs: median(xs.map((x) => x.cpuMs)) });
  return { pipecRun: med(runs.pipecRun), bundle: med(runs.bundle), node: med(runs.node) };
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

async function stateEntries(port: number): Promise<number> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    let n = 0;
    for (const line of text.split('\n')) if (line.startsWith('pipec_state_entries')) n += Number(line.split(' ').pop());
    return n;
  } catch {
    return -1; // not listening yet
  }
}

/** RSS of `pipec run` once its window holds `keys` keys (the file is followed, so it stays open). */
async function pipecRssWith(dir: string, keys: number, port: number): Promise<number> {
  const file = `keys-${keys}.ndjson`;
  await writeDistinctKeys(join(dir, file), keys);
  const spec = `keys-${keys}.pipe.sql`;
  writeFileSync(
    join(dir, spec),
    `PIPELINE open_keys WITH (checkpoint_interval = '1 h');
CREATE SOURCE ev (k BIGINT NOT NULL, v BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'file', path = '${file}', format = 'ndjson', follow = true);
CREATE VIEW w AS SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total FROM TUMBLE(ev, ts, INTERVAL '1' HOUR) GROUP BY k, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK out FROM w WITH (connector = 'file', path = 'keys-out.ndjson', format = 'ndjson');
`,
  );
  const child = spawn(process.execPath, [PIPEC, 'run', spec, '--metrics-port', String(port)], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  try {
    const deadline = Date.now() + 600_000;
    while ((await stateEntries(port)) < keys) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the open-keys pipeline (${keys} keys) ${child.exitCode !== null ? `exited ${child.exitCode}` : 'did not get there in 10 min'}:\n${err.slice(-1500)}`);
      await sleep(200);
    }
    // Let the last batch's garbage go the way it would in a quiet pipeline.
    await sleep(1500);
    return rssOf(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

/** RSS growth of a plain node process for a Map of `keys` number keys → [sum, count]. */
function mapRss(keys: number): number {
  const code = `const before = process.memoryUsage().rss; const m = new Map(); for (let i = 0; i < ${keys}; i++) m.set(i, [0, 0]); globalThis.gc?.(); console.log(process.memoryUsage().rss - before, m.size);`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the Map baseline failed:\n${r.stderr}`);
  return Number(r.stdout.split(' ')[0]);
}

export interface OpenKeys {
  keys: number;
  /** RSS difference per million keys (pipec with `keys` open minus with one), MiB. */
  pipecMiB: number;
  pipecRssOneKeyMiB: number;
  mapMiB: number;
}

export async function openKeys(dir: string, keys: number): Promise<OpenKeys> {
  const port = 20_000 + (process.pid % 20_000);
  const one = await pipecRssWith(dir, 1, port);
  const many = await pipecRssWith(dir, keys, port + 1);
  const perMillion = 1_000_000 / keys;
  return { keys, pipecMiB: ((many - one) * perMillion) / MiB, pipecRssOneKeyMiB: one / MiB, mapMiB: (mapRss(keys) * perMillion) / MiB };
}
