// Compile latency: warm per-spec p50 (in-process, after warm-up), cold CLI start next to a
// bare `node -e 0` in the same run, and 1,000 generated specs in one `pipec build`.
// Targets (issue "compiler core"): warm p50 < 20 ms, cold < 3x bare node, 1,000 specs < 5 s.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { discoverSpecs } from '../../src/build/discover.ts';
import { compileFile } from '../../src/build/compile.ts';
import { GOLDEN_ENV } from '../golden/golden-harness.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const pipecBin = join(repoRoot, 'bin', 'pipec.mjs');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeProcess(args: string[], cwd: string, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { cwd, stdio: 'ignore' });
    times.push(performance.now() - t);
    if (r.status !== 0 && args[0] !== '-e') throw new Error(`${args.join(' ')} exited ${r.status}`);
  }
  return median(times);
}

const line = (name: string, value: string, baseline: string, ratio: number, goal: string): void =>
  void process.stdout.write(`${name.padEnd(38)} ${value.padStart(12)}   baseline ${baseline.padStart(12)}   ratio ${ratio.toFixed(2).padStart(6)}   (${goal})\n`);

// 1. Warm, in-process, per spec.
const specs = discoverSpecs(['specs'], repoRoot).files;
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
const bare = timeProcess(['-e', '0'], repoRoot, 15);
const cold = timeProcess([pipecBin, 'check', 'specs/quickstart.pipe.sql'], repoRoot, 15);
line('cold `pipec check quickstart`', `${cold.toFixed(1)} ms`, `${bare.toFixed(1)} ms`, cold / bare, 'baseline: `node -e 0`; goal: ratio < 3');

// 3. 1,000 generated specs in one build.
const dir = mkdtempSync(join(tmpdir(), 'pipec-bench-'));
try {
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
  const t = performance.now();
  const r = spawnSync(process.execPath, [pipecBin, 'build', 'many', '--out', 'out'], { cwd: dir, stdio: 'inherit' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`build of 1,000 specs exited ${r.status}`);
  line('pipec build of 1,000 specs', `${(ms / 1000).toFixed(2)} s`, '5.00 s', ms / 5000, 'goal: ratio < 1 against the 5 s budget');
  line('  … per spec vs a 1-spec build', `${(ms / 1000).toFixed(1)} ms`, `${baseline.toFixed(1)} ms`, ms / 1000 / baseline, 'amortised cost per spec against one cold build');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
