// A sink that refuses to open (bad configuration, a checkpoint it cannot use) ends the run
// with a one-line message and exit code 2, not an exception escaping the runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { runPipelineDef } from '../../../targets/runtime/lib/runner.ts';
import { registerSink } from '../../../targets/runtime/lib/connectors.ts';

test('a sink whose open() throws: exit 2 and a message naming the sink', async () => {
  registerSink('test-refusing', (def) => ({
    def,
    rowsOut: 0,
    write() {},
    flush() {},
    commit: async () => null,
    open() {
      throw new Error("the upsert key 'id' is not a column of the table");
    },
    close: async () => {},
  }));
  const b = new PlanBuilder('refuse');
  b.source({ name: 's', connector: 'datagen', columns: [column('id', T.int(false))], options: { total_rows: '5' } });
  b.sink({ name: 'out', connector: 'test-refusing' as never, input: b.scan('s') });
  const plan = b.build();
  const gen = generateBody(plan);
  // A test's own connector: not in the compiler's table, yet the runner finds it registered.
  assert.deepEqual(gen.unsupported.map((u) => u.what), ["sink connector 'test-refusing'"]);
  let err = '';
  const r = await runPipelineDef(instantiateBody(gen.body, {}), { baseDir: '/tmp', env: {}, handleSignals: false, stdout: () => {}, stderr: (t) => (err += t) });
  assert.equal(r.exitCode, 2);
  assert.equal(err, "pipec: sink 'out': the upsert key 'id' is not a column of the table\n");
});
