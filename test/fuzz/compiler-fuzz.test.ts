// Fuzz: mutate every valid spec (specs/ and the valid golden cases) and compile each mutant.
// The compiler must never throw, never hang, and every diagnostic must carry a known code
// and a real position. PIPEC_FUZZ_MUTATIONS sets the count (10,000 in CI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { discoverSpecs } from '../../src/build/discover.ts';
import { compileFile } from '../../src/build/compile.ts';
import { lookupCode } from '../../src/diagnostics/registry.ts';
import { GOLDEN_ENV } from '../golden/golden-harness.ts';
import { mutate, prng } from './mutate.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const total = Number(process.env.PIPEC_FUZZ_MUTATIONS ?? 10_000);

test(`fuzz: ${total} mutations of the valid specs never crash or hang the compiler`, { timeout: 900_000 }, async () => {
  const seeds = [
    ...discoverSpecs(['specs'], repoRoot).files,
    ...discoverSpecs(['test/golden/cases'], repoRoot).files.filter((f) => f.includes('/valid-')),
  ];
  assert.ok(seeds.length >= 5, 'expected valid specs to mutate');
  // Mutants live in a scratch copy of specs/ so relative schema paths still resolve.
  const work = mkdtempSync(join(tmpdir(), 'pipec-fuzz-'));
  cpSync(join(repoRoot, 'specs'), join(work, 'specs'), { recursive: true });
  const rnd = prng(20261130);
  let slowest = 0;
  try {
    for (let i = 0; i < total; i++) {
      const seed = seeds[i % seeds.length]!;
      let text = readFileSync(join(repoRoot, seed), 'utf8');
      const rounds = 1 + Math.floor(rnd() * 3);
      for (let r = 0; r < rounds; r++) text = mutate(text, rnd);
      const ext = seed.endsWith('.pipe.sql') ? '.pipe.sql' : '.pipe.yaml';
      const rel = join('specs', `fuzz-${i % 7}${ext}`);
      writeFileSync(join(work, rel), text);
      const started = performance.now();
      let result;
      try {
        result = await compileFile(rel, { cwd: work, env: GOLDEN_ENV });
      } catch (e) {
        assert.fail(`mutation ${i} of ${seed} crashed the compiler: ${(e as Error).stack}\n--- input ---\n${text}`);
      }
      const ms = performance.now() - started;
      slowest = Math.max(slowest, ms);
      assert.ok(ms < 5_000, `mutation ${i} of ${seed} took ${ms.toFixed(0)} ms (a hang?)\n--- input ---\n${text}`);
      for (const d of result.diagnostics.items) {
        assert.ok(lookupCode(d.code), `unknown diagnostic code ${d.code} for mutation ${i}`);
        assert.ok(d.span.start.line >= 1 && d.span.start.column >= 1, `diagnostic ${d.code} has no real position`);
        assert.notEqual(d.code, 'internal-error', `internal error on mutation ${i}: ${d.message}\n--- input ---\n${text}`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`# fuzz: slowest compile ${slowest.toFixed(1)} ms\n`);
});
