// `pipec plan --physical`: the three forms, a secret written inline never printed, `${VAR}`
// shown as written, and the resolved defaults a reviewer needs (delivery, acks, commit points).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFile } from '../../../src/build/compile.ts';
import { lowerPlan } from '../../../src/plan/physical/lower.ts';
import { printPhysicalDot, printPhysicalJson, printPhysicalText } from '../../../src/plan/physical/print.ts';

const SPEC = `
CREATE SOURCE s (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'datagen', total_rows = '10', idle_timeout = '5 s');
CREATE SINK k FROM s WITH (connector = 'kafka', topic = 't', acks = '1');
CREATE SINK e FROM s WITH (connector = 'kafka', topic = 'u', acks = '1', delivery = 'exactly-once');
CREATE SINK c FROM s WITH (connector = 'clickhouse', url = 'http://u:inline-secret@h:8123', table = 'db.t', password = 'inline-secret', user = '\${CH_USER}');
CREATE SINK c2 FROM s WITH (connector = 'clickhouse', table = 't2', order_by = 'ts', ttl = 'ts + INTERVAL 1 DAY');
`;

async function physical() {
  const r = await compileFile('p.pipe.sql', { cwd: '/', readText: () => SPEC, env: { get: (n) => ({ CH_USER: 'writer', PIPEC_KAFKA_BROKERS: 'b:1', PIPEC_CLICKHOUSE_URL: 'http://h:1' } as Record<string, string>)[n] } });
  assert.ok(r.plan && !r.diagnostics.hasErrors, r.diagnostics.sorted().map((d) => d.message).join('\n'));
  return lowerPlan(r.plan);
}

test('the text form shows resolved delivery, effective acks and commit points; secrets are masked in every form', async () => {
  const p = await physical();
  const text = printPhysicalText(p);
  // acks=1 gives a plain producer; exactly-once forces acks=all and idempotence, and commits after checkpoints.
  assert.match(text, /sink k \(kafka\)[^\n]*\n  config: acks=1, brokers=\$\{PIPEC_KAFKA_BROKERS\}, delivery=at-least-once, format=json, idempotent=false,/);
  assert.match(text, /sink e \(kafka\)[^\n]*\n  config: acks=all, [^\n]*delivery=exactly-once, [^\n]*idempotent=true,[^\n]*\n  commits: after each durable checkpoint/);
  assert.match(text, /dedup=auto, delivery=at-least-once, flushIntervalMs=1 s/);
  assert.match(text, /user=\$\{CH_USER\}/);
  for (const out of [text, printPhysicalJson(p), printPhysicalDot(p)]) assert.ok(!out.includes('inline-secret'), out);
  assert.match(text, /password=\*\*\*/);
  assert.equal(JSON.parse(printPhysicalJson(p)).physicalVersion, 2);
  assert.match(printPhysicalDot(p), /^digraph "p" \{/);
});

test('a ClickHouse sink shows the table it writes: a bare name in default, the sorting key, the TTL', async () => {
  const text = printPhysicalText(await physical());
  assert.match(text, /sink c \(clickhouse\)[^\n]*\n[^\n]*\n  commits: [^\n]*\n  table: db\.t, order by \(\)\n/);
  assert.match(text, /sink c2 \(clickhouse\)[^\n]*\n[^\n]*\n  commits: [^\n]*\n  table: default\.t2, order by \(ts\), ttl ts \+ INTERVAL 1 DAY\n/);
});

test('two lowerings of one plan print byte-identical text', async () => {
  assert.equal(printPhysicalJson(await physical()), printPhysicalJson(await physical()));
});
