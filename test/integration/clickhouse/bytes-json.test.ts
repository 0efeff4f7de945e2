// BYTES from JSON messages in the ClickHouse DDL (issue 20), run in chdb: JSON carries BYTES
// as base64 text (as Flink's JSON format and pipec's runtime read it), so the views downstream
// of a Kafka source hold the decoded bytes — `WHERE payload = unhex('000000FF')` finds the
// row — and a value that is not base64 is a dead letter, not a row holding garbage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { runChdb } from '../../support/chdb.ts';
import { insert } from './support.ts';

const SQL = `
CREATE SOURCE ev (id INT, payload BYTES) WITH (connector = 'kafka', topic = 'ev', format = 'json', brokers = 'broker.internal:9092');
CREATE VIEW e AS SELECT id, payload FROM ev;
`;

test('ClickHouse: JSON base64 BYTES are stored as the bytes; text that is not base64 is a dead letter', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-ch-bytes-'));
  writeFileSync(path.join(dir, 'p.pipe.sql'), SQL);
  const r = await compileFile('p.pipe.sql', { cwd: dir, env: { get: () => undefined } });
  assert.ok(r.plan && !r.diagnostics.hasErrors, JSON.stringify(r.diagnostics.items.filter((d) => d.severity === 'error')));
  const out = emitClickHouse(r.plan, { sourceMode: 'insertable' });
  assert.equal(out.diagnostics.hasErrors, false);
  const b64 = (bytes: number[]): string => Buffer.from(bytes).toString('base64');
  const rows = [
    { id: 1, payload: b64([0, 0, 0, 0xff]) },
    { id: 2, payload: b64([0x80, 0x41]) },
    { id: 3, payload: null },
    { id: 4, payload: '' },
    { id: 5, payload: 'not base64!' },
  ];
  const res = await runChdb(
    [
      out.sql,
      insert('`p`.`ev`', ['id', 'payload'], rows),
      "SELECT id FROM `p`.`e` WHERE payload = unhex('000000FF');",
      'SELECT id, hex(payload) AS h FROM `p`.`e` ORDER BY id;',
      'SELECT error FROM `p`.`ev__dead_letters`;',
    ].join('\n'),
  );
  const [found, all, dead] = res.filter((x) => x.statement.startsWith('SELECT')).map((x) => x.rows);
  assert.deepEqual(found!.map((x) => Number(x.id)), [1]);
  assert.deepEqual(
    all!.map((x) => [Number(x.id), x.h]),
    [
      [1, '000000FF'],
      [2, '8041'],
      [3, null],
      [4, ''],
    ],
  );
  assert.deepEqual(dead!.map((x) => x.error), ["cannot read BYTES column payload as base64 from not base64!"]);
});
