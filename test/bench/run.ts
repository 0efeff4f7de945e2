// `npm run bench`: runs every test/bench/*.bench.ts in its own process, one after another
// (benchmarks share two cores; running them in parallel would make every figure noise).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const only = process.argv.slice(2);
const files = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n=== ${f} ===\n`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.stdout.write(`\n${files.length - failed} passed, ${failed} failed\n`);
process.exitCode = failed ? 1 : 0;
