// Compile latency: warm per-spec p50 (in-process, after warm-up), cold CLI start next to a
// bare `node -e 0` in the same run, and 1,000 generated specs in one `pipec build` (all targets).
// Targets (issues "compiler core", 14.5): warm p50 < 20 ms, cold < 3x bare node, 1,000 specs < 5 s.
// Each process figure is given as wall time and as the process's own CPU time (user + system,
// test/bench/cpu-time-preload.mjs): on a machine shared with other jobs the wall time mostly
// measures them, so the goals are judged on the CPU time, with wall time beside it. A build of
// many specs compiles on every core (worker threads): its CPU time is the sum over the threads,
// and its wall time is the figure the 5 s goal is about. `BENCH_COMPILE_ONLY=build` runs only
// section 3 (`warm`, `cold`: only section 1 or 2).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { discoverSpecs } from '../../src/build/discover.ts';
import { compileFile } from '../../src/build/compile.ts';
import { GOLDEN_ENV } from '../golden/golden-harness.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const pipecBin = join(repoRoot, 'bin', 'pipec.mjs');

/**
 * Waits (at most 60 s) until the disk is quiet: Linux's pressure stall information for I/O
 * (`some avg10`, the share of the last 10 s in which a task waited on I/O) under 1 %; then until
 * file creation is back to its settled cost (settleInodes). Returns both figures as printed
 * beside the result ('n/a' without /proc/pressure/io).
 */
function settleDisk(): string {
  const read = (): number | null => {
    try {
      return Number(/some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/io', 'utf8'))?.[1]);
    } catch {
      return null;
    }
  };
  spawnSync('sync'); // the files just written (the specs, an earlier build) reach the disk first
  const until = Date.now() + 60_000;
  let pressure = 'n/a';
  for (let p = read(); p !== null; p = read()) {
    if (p < 1 || Date.now() > until) {
      pressure = `${p.toFixed(1)} %`;
      break;
    }
    spawnSync('sleep', ['1']);
  }
  return `${pressure}, ${settleInodes()}`;
}

let probes = 0;

/**
 * Waits (at most 8 min) until creating a file costs the kernel what it does on a disk with no
 * recent large delete. On ext4, an inode freed in the last 60 s (360 s while its inode table
 * block is unwritten) is not reused, and each new file's allocation steps past every such inode
 * with a buffer lookup: for ~6 minutes after a delete of 40,000 entries (a test run, this bench's
 * own clean-up) a build's kernel time went from ~0.7–1.1 s to 5–11 s, and its wall time to 5–9 s.
 * That measures the delete, not the build. The probe creates 300 empty files in a folder of the
 * bench's own (deleted only at the end, so the probes add no recent deletes) and reads this
 * process's system CPU time: ~40–100 µs a file when settled, 200–470 µs within those minutes
 * (2026-12-04; a probe of 123 µs still came before a 5.2 s build, hence the bar of 50). Returns the last probe's figure and the time waited.
 */
function settleInodes(): string {
  const t0 = Date.now();
  for (;;) {
    const folder = join(dir!, `probe-${probes++}`);
    mkdirSync(folder);
    const c0 = process.cpuUsage();
    for (let i = 0; i < 300; i++) writeFileSync(join(folder, String(i)), '');
    const perFile = process.cpuUsage(c0).system / 300;
    const waited = (Date.now() - t0) / 1000;
    if (perFile < 50 || waited > 480) return `file creation ${perFile.toFixed(0)} µs after ${waited.toFixed(0)} s`;
    spawnSync('sleep', ['15']);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const preload = join(import.meta.dirname, 'cpu-time-preload.mjs');
const cpuFile = join(tmpdir(), `pipec-bench-cpu-${process.pid}`);
const sysFile = `${cpuFile}.sys`;

/** Median wall, CPU and system CPU time (ms) of `node args` over `runs` runs. */
function timeProcess(args: string[], cwd: string, runs: number, stdio: 'ignore' | 'inherit' = 'ignore'): { wall: number; cpu: number; sys: number } {
  const walls: number[] = [];
  const cpus: number[] = [];
  const syss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, ['--import', preload, ...args], { cwd, stdio, env: { ...process.env, PIPEC_BENCH_CPU_FILE: cpuFile, PIPEC_BENCH_SYS_FILE: sysFile } });
    walls.push(performance.now() - t);
    cpus.push(Number(readFileSync(cpuFile, 'utf8')));
    syss.push(Number(readFileSync(sysFile, 'utf8')));
    if (r.status !== 0 && args[0] !== '-e') throw new Error(`${args.join(' ')} exited ${r.status}`);
  }
  return { wall: median(walls), cpu: median(cpus), sys: median(syss) };
}

const line = (name: string, value: string, baseline: string, ratio: number, goal: string): void =>
  void process.stdout.write(`${name.padEnd(38)} ${value.padStart(12)}   baseline ${baseline.padStart(12)}   ratio ${ratio.toFixed(2).padStart(6)}   (${goal})\n`);

const only = process.env.BENCH_COMPILE_ONLY;
const runs = (section: 'warm' | 'cold' | 'build'): boolean => only === undefined || only === section;

// 1. Warm, in-process, per spec.
const specs = runs('warm') ? discoverSpecs(['specs'], repoRoot).files : [];
for (const spec of specs) {
  for (let i = 0; i < 5; i++) await compileFile(spec, { cwd: repoRoot, env: GOLDEN_ENV });
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    await compileFile(spec, { cwd: repoRoot, env: GOLDEN_ENV });
    times.push(performance.now() - t);
  }
  const p50 = median(times);
  line(`warm compile p50 ${spec.replace('specs/', '')}`, `${p50.toFixed(2)} ms`, '20.00 ms', p50 / 20, 'goal: ratio < 1 against the 20 ms budget');
}

// 2. Cold CLI start next to a bare node start, same run, same machine state.
if (runs('cold')) {
  const bare = timeProcess(['-e', '0'], repoRoot, 15);
  const cold = timeProcess([pipecBin, 'check', 'specs/quickstart.pipe.sql'], repoRoot, 15);
  line('cold `pipec check quickstart` (CPU)', `${cold.cpu.toFixed(1)} ms`, `${bare.cpu.toFixed(1)} ms`, cold.cpu / bare.cpu, 'baseline: `node -e 0`; goal: ratio < 3');
  line('  … wall time', `${cold.wall.toFixed(1)} ms`, `${bare.wall.toFixed(1)} ms`, cold.wall / bare.wall, 'baseline: `node -e 0`; goal: ratio < 3');
}

// 3. 1,000 generated specs in one build.
const dir = runs('build') ? mkdtempSync(join(tmpdir(), 'pipec-bench-')) : null;
if (dir) try {
  mkdirSync(join(dir, 'many'));
  cpSync(join(repoRoot, 'pipec.yaml'), join(dir, 'pipec.yaml'));
  const template = readFileSync(join(repoRoot, 'specs', 'quickstart.pipe.sql'), 'utf8');
  for (let i = 0; i < 1000; i++) {
    const text = template
      .replace('PIPELINE quickstart', `PIPELINE gen_${String(i).padStart(4, '0')}`)
      .replace("INTERVAL '1' MINUTE", `INTERVAL '${1 + (i % 59)}' MINUTE`);
    writeFileSync(join(dir, 'many', `gen_${i}.pipe.sql`), text);
  }
  const baseline = timeProcess([pipecBin, 'build', 'many/gen_0.pipe.sql', '--out', 'out-one'], dir, 3);
  // Three builds, each into folders of its own, and nothing deleted until the end: on an ext4
  // disk with online discard, deleting the previous build's 13,000 entries slowed the next build
  // by 1–3 s of kernel time, which measured the delete, not the build. The median is the figure.
  // Before each build the disk is let settle (below): the write-back and discards of the files
  // written or deleted just before (the previous build, a test run) otherwise land in the build's
  // own kernel time (system CPU 0.7 s quiet, 1.8–3.7 s right after).
  const pressures: string[] = [];
  const builds = [1, 2, 3].map((k) => {
    pressures.push(settleDisk());
    return timeProcess([pipecBin, 'build', 'many', '--out', `out-${k}`, '--bundle', `bundles-${k}`], dir, 1, k === 1 ? 'inherit' : 'ignore');
  });
  const many = { wall: median(builds.map((b) => b.wall)), cpu: median(builds.map((b) => b.cpu)), sys: median(builds.map((b) => b.sys)) };
  const load = loadavg()[0]!.toFixed(2);
  const each = builds.map((b) => (b.wall / 1000).toFixed(2)).join(' / ');
  line(`pipec build of 1,000 specs (wall, ${availableParallelism()} cores)`, `${(many.wall / 1000).toFixed(2)} s`, '5.00 s', many.wall / 5000, `goal: ratio < 1 against the 5 s budget; median of 3 builds (${each} s); load ${load}; disk before each: I/O pressure ${pressures.join('; ')}`);
  line('  … CPU time, all threads', `${(many.cpu / 1000).toFixed(2)} s`, '5.00 s', many.cpu / 5000, 'the work done: the sum over the threads');
  // Kernel time is mostly the creation of the build's ~13,000 files and folders; it shows
  // whether the run still measured a recent delete (settleInodes gives up after 8 minutes).
  line('  … of which kernel (system) time', `${(many.sys / 1000).toFixed(2)} s`, `${(many.cpu / 1000).toFixed(2)} s`, many.sys / many.cpu, 'baseline: the CPU time above; ~0.1–0.2 when no large delete came just before, 0.5+ right after one');
  line('  … per spec vs a 1-spec build (CPU)', `${(many.cpu / 1000).toFixed(1)} ms`, `${baseline.cpu.toFixed(1)} ms`, many.cpu / 1000 / baseline.cpu, 'amortised cost per spec against one cold build');
  // A rebuild over the same tree (unchanged outputs; the bundles' runtime.mjs re-linked).
  settleDisk();
  const again = timeProcess([pipecBin, 'build', 'many', '--out', 'out-1', '--bundle', 'bundles-1'], dir, 1);
  line('  … the same build again (CPU)', `${(again.cpu / 1000).toFixed(2)} s`, '5.00 s', again.cpu / 5000, 'goal: ratio < 1 against the 5 s budget');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
rmSync(cpuFile, { force: true });
rmSync(sysFile, { force: true });
