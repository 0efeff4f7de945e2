// A very long NDJSON line costs time linear in its length (issue 12 item 10): the reader used
// to concatenate the partial line with every 64 KB chunk (a 32 MB line took 11 s of CPU).
// No absolute timings: the CPU time of a 32 MB line must stay well below 16x that of an 8 MB
// line (4x is linear, 16x quadratic).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson, tempDir } from '../../fixtures/runtime/run-helpers.ts';

const SPEC = `
CREATE SOURCE ev (id INT NOT NULL, pad STRING) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');
CREATE VIEW ids AS SELECT id, CHAR_LENGTH(pad) AS n FROM ev;
CREATE SINK out FROM ids WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

test('an NDJSON line of 32 MB costs about 4x the CPU of one of 8 MB, not 16x', { timeout: 180_000 }, async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'p.pipe.sql'), SPEC);
  const r = await compileFile(path.join(dir, 'p.pipe.sql'), { cwd: dir, env: { get: () => undefined } });
  assert.ok(r.plan);
  /** CPU microseconds of one run over a file of a short line, a line of `mb` MB, a short line. */
  const cpu = async (mb: number): Promise<number> => {
    const pad = 'x'.repeat(mb << 20);
    writeFileSync(path.join(dir, 'ev.ndjson'), `{"id":1,"pad":"a"}\n{"id":2,"pad":"${pad}"}\n{"id":3,"pad":"b"}\n`);
    const t0 = process.cpuUsage();
    const x = await runPipeline(r.plan!, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: () => {} });
    const t = process.cpuUsage(t0);
    assert.equal(x.exitCode, 0);
    assert.deepEqual(readNdjson(path.join(dir, 'out.ndjson')), [{ id: 1, n: 1 }, { id: 2, n: mb << 20 }, { id: 3, n: 1 }]);
    return t.user + t.system;
  };
  await cpu(1); // warm-up: compile the code paths once
  // The best of two runs each, against noise from other processes' use of the machine.
  const small = Math.min(await cpu(8), await cpu(8));
  const large = Math.min(await cpu(32), await cpu(32));
  const ratio = large / small;
  assert.ok(ratio < 8, `32 MB / 8 MB CPU ratio ${ratio.toFixed(1)} (linear is 4, quadratic 16)`);
});
