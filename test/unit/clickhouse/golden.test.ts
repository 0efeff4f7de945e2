// Golden DDL of test/fixtures/clickhouse/specs/bids.pipe.sql (both variants): reviewers see every change
// to the emitted SQL as a diff. Update only with UPDATE_GOLDEN=1 and a reviewed diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFile } from '../../../src/build/compile.ts';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';

const specs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/clickhouse/specs');
const env = { get: (n: string): string | undefined => `<${n}>` };

for (const mode of ['kafka', 'insertable'] as const) {
  test(`bids.pipe.sql → ${mode} DDL matches its golden file`, async () => {
    const r = await compileFile('bids.pipe.sql', { cwd: specs, env });
    assert.ok(r.plan);
    const out = emitClickHouse(r.plan, { sourceMode: mode });
    const text = `${out.sql}\n-- ---- teardown ----\n${out.teardown}\n-- ---- diagnostics ----\n${out.diagnostics.items.map((d) => `-- ${d.severity} ${d.code}: ${d.message}`).join('\n')}\n`;
    const golden = path.join(specs, `bids.${mode}.clickhouse.sql.golden`);
    if (process.env['UPDATE_GOLDEN'] === '1' || !existsSync(golden)) {
      if (process.env['CI']) assert.fail(`golden ${golden} missing in CI`);
      writeFileSync(golden, text);
    }
    assert.equal(text, readFileSync(golden, 'utf8'));
  });
}
