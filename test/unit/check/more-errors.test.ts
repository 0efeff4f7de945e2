// The remaining error classes of the checker, one invalid spec each, and a registry check:
// every code of the check area is reported somewhere in src/check and is documented.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkCodes } from '../../../src/diagnostics/codes/check.ts';
import { at, check, kafkaSource } from './helpers.ts';

const a = kafkaSource('a', 'k STRING NOT NULL, n INT, other TIMESTAMP(3), ts TIMESTAMP(3) NOT NULL');
const b = kafkaSource('b', 'k STRING NOT NULL, ts TIMESTAMP(3) NOT NULL');

test('two PIPELINE statements', async () => {
  const c = await check(`PIPELINE p;\nPIPELINE q;`);
  assert.deepEqual(at(c, 'duplicate-pipeline'), ['2:1']);
});

test('the same alias twice in a join', async () => {
  const c = await check(`${a}${b}CREATE VIEW v AS SELECT x.k FROM a x JOIN b x ON x.k = x.k;`);
  assert.deepEqual(c.errors, ['duplicate-alias']);
});

test('a column declared twice', async () => {
  const c = await check(`CREATE SOURCE s (a INT, A BIGINT) WITH (connector = 'kafka', topic = 't');`);
  assert.deepEqual(at(c, 'duplicate-column'), ['1:25']);
});

test('a changelog source without a primary key is warned about', async () => {
  const c = await check(`CREATE SOURCE s (a INT) WITH (connector = 'kafka', topic = 't', format = 'debezium-json');`);
  assert.deepEqual(c.codes, ['cdc-without-primary-key']);
  assert.equal(c.diags[0]!.severity, 'warning');
  assert.equal(c.plan!.sources[0]!.changelog, 'changelog');
});

test('a window over a changelog', async () => {
  const c = await check(`CREATE SOURCE s (id INT NOT NULL, ts TIMESTAMP(3) NOT NULL, PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts)
WITH (connector = 'postgres-cdc', dsn = 'x', table = 'public.s');
CREATE VIEW v AS SELECT COUNT(*) AS c FROM TUMBLE(s, ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end;`);
  assert.deepEqual(c.errors, ['window-on-changelog']);
});

test('an interval bound on a column that is not the event time', async () => {
  const c = await check(`${a}${b}CREATE VIEW v AS SELECT a.k FROM a JOIN b ON a.k = b.k AND a.other BETWEEN b.ts AND b.ts + INTERVAL '1' MINUTE;`);
  assert.deepEqual(c.errors, ['join-time-not-rowtime']);
});

test('a non-windowed aggregate in a sink query', async () => {
  const c = await check(`${a}CREATE SINK s AS SELECT k, COUNT(*) AS c FROM a GROUP BY k WITH (connector = 'stdout');`);
  assert.deepEqual(c.errors, ['aggregate-needs-view']);
});

test('every check code is reported by src/check and documented', () => {
  const dir = join(import.meta.dirname, '../../../src/check');
  const source = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  for (const [code, entry] of Object.entries(checkCodes)) {
    assert.ok(source.includes(`'${code}'`), `${code} is never reported`);
    assert.ok(entry.explain.length > 40 && entry.title.length > 0, `${code} lacks a title or an explanation`);
  }
});
