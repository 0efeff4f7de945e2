// Fuzz: mutate every valid spec (specs/ and the valid golden cases), and feed it hostile
// generated inputs (test/fuzz/generators.ts), through every stage a user reaches: check,
// rendering, plan printing, fmt both ways, every target's emit and the paths a build writes
// (test/fuzz/stages.ts). No exception may escape, no diagnostic may be internal-error or lack
// a known code and a real position, and each case must finish within a generous time bound
// (2 s per MB of input, at least 5 s). A failure names the case and its seed to replay it.
// PIPEC_FUZZ_MUTATIONS sets the number of mutants, PIPEC_FUZZ_GENERATED of generated cases,
// PIPEC_FUZZ_SEED the seed, PIPEC_FUZZ_ONLY one case number (replay).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { discoverSpecs } from '../../src/build/discover.ts';
import { GOLDEN_ENV } from '../golden/golden-harness.ts';
import { mutate, prng } from './mutate.ts';
import { GENERATORS } from './generators.ts';
import { runStages } from './stages.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const mutations = Number(process.env.PIPEC_FUZZ_MUTATIONS ?? 1_500);
const generated = Number(process.env.PIPEC_FUZZ_GENERATED ?? 350);
const baseSeed = Number(process.env.PIPEC_FUZZ_SEED ?? 20261201);
const only = process.env.PIPEC_FUZZ_ONLY === undefined ? null : Number(process.env.PIPEC_FUZZ_ONLY);

interface Case {
  label: string;
  ext: string;
  text: string;
}

/** Case i, from its own PRNG so any one case can be replayed alone. */
function makeCase(i: number, seeds: string[], texts: Map<string, string>): Case {
  const rnd = prng(baseSeed + i * 7919);
  if (i < mutations) {
    const seed = seeds[i % seeds.length]!;
    let text = texts.get(seed)!;
    const rounds = 1 + Math.floor(rnd() * 3);
    for (let r = 0; r < rounds; r++) text = mutate(text, rnd);
    return { label: `mutation of ${seed}`, ext: seed.endsWith('.pipe.sql') ? '.pipe.sql' : '.pipe.yaml', text };
  }
  const names = Object.keys(GENERATORS);
  const g = names[(i - mutations) % names.length]!;
  const seed = seeds[Math.floor(rnd() * seeds.length)]!;
  const isSql = seed.endsWith('.pipe.sql');
  return { label: `${g} of ${seed}`, ext: isSql ? '.pipe.sql' : '.pipe.yaml', text: GENERATORS[g]!(texts.get(seed)!, isSql, rnd) };
}

test(`fuzz: ${mutations} mutations and ${generated} hostile inputs through every stage`, { timeout: 900_000 }, async () => {
  const seeds = [
    ...discoverSpecs(['specs'], repoRoot).files,
    ...discoverSpecs(['test/golden/cases'], repoRoot).files.filter((f) => f.includes('/valid-')),
  ];
  assert.ok(seeds.length >= 5, 'expected valid specs to mutate');
  const texts = new Map(seeds.map((s) => [s, readFileSync(join(repoRoot, s), 'utf8')] as [string, string]));
  // Mutants live in a scratch copy of specs/ so relative schema paths still resolve.
  const work = mkdtempSync(join(tmpdir(), 'pipec-fuzz-'));
  cpSync(join(repoRoot, 'specs'), join(work, 'specs'), { recursive: true });
  let slowest = 0;
  const failures: string[] = [];
  const started = performance.now();
  try {
    for (let i = 0; i < mutations + generated; i++) {
      if (only !== null && i !== only) continue;
      const c = makeCase(i, seeds, texts);
      const rel = join('specs', `fuzz-${i % 7}${c.ext}`);
      const replay = `PIPEC_FUZZ_SEED=${baseSeed} PIPEC_FUZZ_ONLY=${i}`;
      const t = performance.now();
      let problems: string[];
      try {
        problems = await runStages(rel, c.text, { work, env: GOLDEN_ENV, bundle: i % 500 === 0 });
      } catch (e) {
        problems = [`exception: ${(e as Error).stack?.split('\n').slice(0, 6).join('\n')}`];
      }
      const ms = performance.now() - t;
      slowest = Math.max(slowest, ms);
      const bound = Math.max(5_000, (2_000 * c.text.length) / 1e6);
      if (ms > bound) problems.push(`took ${ms.toFixed(0)} ms for ${c.text.length} chars (bound ${bound.toFixed(0)} ms)`);
      if (problems.length > 0) {
        failures.push(`case ${i} (${c.label}; replay: ${replay}):\n  ${problems.map((p) => p.slice(0, 2_000)).join('\n  ')}\n--- input (first 1,500 chars) ---\n${JSON.stringify(c.text.slice(0, 1_500))}`);
        if (failures.length >= 10) break;
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`# fuzz: ${((performance.now() - started) / 1000).toFixed(1)} s, slowest case ${slowest.toFixed(1)} ms\n`);
  assert.deepEqual(failures, [], failures.join('\n\n'));
});
