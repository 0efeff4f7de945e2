// The compiler's table of runtime modules (src/connectors/runtime-modules.ts) and the runtime's
// module files agree: every entry names a file in targets/runtime/lib/modules/ that exports the
// named binding providing that connector or format, and the in-process list has them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_RUNTIME_MODULES, RUNTIME_FORMAT_MODULES, RUNTIME_SINK_MODULES, RUNTIME_SOURCE_MODULES } from '../../../src/connectors/runtime-modules.ts';
import { ALL_MODULES } from '../../../targets/runtime/all-modules.ts';
import type { RuntimeModule } from '../../../targets/runtime/lib/connectors.ts';

const dir = join(import.meta.dirname, '..', '..', '..', 'targets', 'runtime', 'lib', 'modules');

test('every table entry is a module file whose binding provides the connector or format', async () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
  assert.deepEqual(ALL_RUNTIME_MODULES.map((m) => m.module), files, 'one table entry per module file');
  const check = async (table: Readonly<Record<string, { module: string; binding: string }>>, kind: 'sources' | 'sinks' | 'formats'): Promise<void> => {
    for (const [name, ref] of Object.entries(table)) {
      const mod = (await import(join(dir, `${ref.module}.ts`))) as Record<string, RuntimeModule>;
      const m = mod[ref.binding];
      assert.ok(m, `${ref.module}.ts exports ${ref.binding}`);
      assert.equal(m.name, ref.module);
      assert.equal(typeof m[kind]?.[name], 'function', `${ref.module} provides ${kind} '${name}'`);
    }
  };
  await check(RUNTIME_SOURCE_MODULES, 'sources');
  await check(RUNTIME_SINK_MODULES, 'sinks');
  await check(RUNTIME_FORMAT_MODULES, 'formats');
  assert.deepEqual(ALL_MODULES.map((m) => m.name).sort(), files);
});
