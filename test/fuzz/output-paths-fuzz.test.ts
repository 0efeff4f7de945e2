// Fuzz (issue 12 item 2): the shipped Iceberg specs with their pipeline, Iceberg sink and
// compaction-policy names replaced by seeded random names made of `..`, `.`, separators, NUL,
// spaces and other characters, built and written with the real writer. Whatever the names,
// nothing outside `--out` may be created, changed or removed. PIPEC_FUZZ_PATH_CASES sets the count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { buildSpecs } from '../../src/build/build.ts';
import { OutputPathError, writeOutputs } from '../../src/build/write-outputs.ts';
import { clickhouseTarget } from '../../targets/clickhouse/index.ts';
import { icebergTarget } from '../../targets/iceberg/index.ts';
import { GOLDEN_ENV } from '../golden/golden-harness.ts';
import { prng } from './mutate.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const total = Number(process.env.PIPEC_FUZZ_PATH_CASES ?? 150);

/** Every file under `dir` (except `skip`) with its contents: the state that must not change. */
function snapshot(dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === skip) continue;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else out.set(r, readFileSync(join(d, e.name), 'base64'));
    }
  };
  walk(dir, '');
  return out;
}

test(`fuzz: ${total} builds with hostile names never touch anything outside --out`, { timeout: 900_000 }, async () => {
  // Names replaced: [spec, pipeline, Iceberg sink, compaction policy].
  const seeds: [string, string, string, string][] = [
    ['orders_revenue.pipe.sql', 'orders_revenue', 'revenue_lake', 'revenue_maintenance'],
    ['clickstream_sessions.pipe.sql', 'clickstream_sessions', 'sessions_lake', 'sessions_maintenance'],
  ];
  const pieces = ['..', '..', '.', '/', '/', '\\', 'a', 'x', '\u0000', ' ', '~', 'é', '\u2028', ':', '-'];
  const rnd = prng(20261201);
  const safe = ['a', 'x', 'é', '-', '.', '~', '\u2028'];
  // One name in three from pieces that make a safe name (mostly): the writer is exercised too.
  const hostile = (): string => {
    const from = rnd() < 0.34 ? safe : pieces;
    return Array.from({ length: 1 + Math.floor(rnd() * 7) }, () => from[Math.floor(rnd() * from.length)]).join('');
  };
  const quote = (n: string): string => `"${n.replaceAll('"', '""')}"`;
  const top = mkdtempSync(join(tmpdir(), 'pipec-fuzz-paths-'));
  const proj = join(top, 'a', 'b', 'proj');
  mkdirSync(proj, { recursive: true });
  cpSync(join(repoRoot, 'specs'), join(proj, 'specs'), { recursive: true });
  mkdirSync(join(top, 'victim'));
  writeFileSync(join(top, 'victim', 'precious.txt'), 'keep me');
  let written = 0;
  try {
    for (let i = 0; i < total; i++) {
      const [file, pipeline, sink, policy] = seeds[i % seeds.length]!;
      let text = readFileSync(join(repoRoot, 'specs', file), 'utf8');
      const names = [hostile(), hostile(), hostile()];
      text = text.replace(new RegExp(`^PIPELINE ${pipeline}\\b`, 'm'), `PIPELINE ${quote(names[0]!)}`);
      text = text.replace(new RegExp(`\\b${sink}\\b`, 'g'), quote(names[1]!)).replace(new RegExp(`\\b${policy}\\b`, 'g'), quote(names[2]!));
      const rel = `specs/fuzz-${i % 5}.pipe.sql`;
      writeFileSync(join(proj, rel), text);
      const before = snapshot(top, 'a/b/proj/generated');
      const build = await buildSpecs({ cwd: proj, env: GOLDEN_ENV, files: [rel], targets: [clickhouseTarget, icebergTarget], outDir: 'generated' });
      if (build.ok) {
        try {
          await writeOutputs(proj, 'generated', build);
          written++;
        } catch (e) {
          assert.ok(e instanceof OutputPathError, `case ${i} ${JSON.stringify(names)}: ${(e as Error).message}`);
        }
      }
      for (const d of build.results[0]!.diagnostics.items) assert.notEqual(d.code, 'internal-error', `case ${i} ${JSON.stringify(names)}: ${d.message}`);
      assert.deepEqual(snapshot(top, 'a/b/proj/generated'), before, `case ${i} ${JSON.stringify(names)} changed something outside --out`);
    }
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
  // The fuzz must also exercise the writer, not only the check's refusals.
  assert.ok(written > 0, 'no case was safe enough to be written');
  process.stdout.write(`# fuzz paths: ${written} of ${total} cases written\n`);
});
