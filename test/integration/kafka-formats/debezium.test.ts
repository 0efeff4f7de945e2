// debezium-json: Debezium change events (bare and in the JsonConverter's {schema, payload}
// envelope) become changelog rows: c/r → +I, u → -U(before) +U(after), d → -D(before);
// Kafka tombstones are skipped, not dead letters; Connect semantic types (MicroTimestamp,
// Decimal as base64) are converted when the envelope carries the schema. Checked through a
// pipeline whose NDJSON sink writes each row's kind (`op`).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTopic, kafkaEnv, produceRaw, runSpec, unique } from './helpers.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

const ev = (op: string, before: object | null, after: object | null): string => JSON.stringify({ before, after, op, source: { db: 'shop', table: 'customers' }, ts_ms: 1700000000000 });

/** The {schema, payload} envelope with the column types Debezium gives for this table. */
function enveloped(op: string, before: object | null, after: object | null): string {
  const row = {
    type: 'struct',
    optional: true,
    fields: [
      { type: 'int64', optional: false, field: 'id' },
      { type: 'string', optional: true, field: 'name' },
      { type: 'bytes', optional: true, name: 'org.apache.kafka.connect.data.Decimal', parameters: { scale: '2', 'connect.decimal.precision': '10' }, field: 'balance' },
      { type: 'int64', optional: true, name: 'io.debezium.time.MicroTimestamp', field: 'updated' },
    ],
  };
  const schema = { type: 'struct', fields: [{ ...row, field: 'before' }, { ...row, field: 'after' }, { type: 'string', field: 'op' }] };
  return JSON.stringify({ schema, payload: JSON.parse(ev(op, before, after)) });
}

test('debezium-json: c/r/u/d events → +I, -U/+U, -D rows; tombstones skipped; envelope types converted; bad events dead-lettered', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'dbz');
  const row = (id: number, name: string, balance: string, updated: string) => ({ id, name, balance, updated });
  await produceRaw(topic, 0, [
    ev('r', null, row(1, 'ann', '10.00', '2024-01-01 00:00:00')), // 0: snapshot read
    ev('c', null, row(2, 'bob', '5.50', '2024-01-01 00:00:01')), // 1
    ev('u', row(1, 'ann', '10.00', '2024-01-01 00:00:00'), row(1, 'ann', '12.25', '2024-01-01 00:00:02')), // 2
    ev('d', row(2, 'bob', '5.50', '2024-01-01 00:00:01'), null), // 3
    null, // 4: the tombstone Debezium writes after a delete
    // 5: 12.34 is 1234 = 0x04d2 (base64 BNI=); 1704067203000000 µs = 2024-01-01 00:00:03
    enveloped('c', null, { id: 3, name: 'cy', balance: 'BNI=', updated: 1704067203000000 }),
    ev('x', null, row(4, 'dan', '1', '2024-01-01 00:00:04')), // 6: unknown op
    'not json', // 7
    ev('c', null, { id: 'five', name: 'eve', balance: '1', updated: '2024-01-01 00:00:05' }), // 8: id is not a BIGINT
    ev('u', null, row(3, 'cy', '0.01', '2024-01-01 00:00:06')), // 9: update without before → +U alone
  ]);
  const s = `PIPELINE dbz_customers WITH (checkpoint_interval = '1 s');
CREATE SOURCE customers (
  id BIGINT NOT NULL, name STRING, balance DECIMAL(10, 2), updated TIMESTAMP(3),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'kafka', topic = '${topic}', format = 'debezium-json', startup = 'earliest', group_id = '${unique('g')}');
CREATE SINK out FROM customers WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;
  const r = await runSpec(s, { PIPEC_KAFKA_BROKERS: brokers }, { rows: 7, dead: 3 });
  assert.equal(r.exitCode, 0, r.stderr);
  const k = (op: string, id: number, name: string, balance: string, updated: string) => ({ op, id, name, balance, updated: `${updated}.000` });
  assert.deepEqual(r.out, [
    k('+I', 1, 'ann', '10.00', '2024-01-01 00:00:00'),
    k('+I', 2, 'bob', '5.50', '2024-01-01 00:00:01'),
    k('-U', 1, 'ann', '10.00', '2024-01-01 00:00:00'),
    k('+U', 1, 'ann', '12.25', '2024-01-01 00:00:02'),
    k('-D', 2, 'bob', '5.50', '2024-01-01 00:00:01'),
    k('+I', 3, 'cy', '12.34', '2024-01-01 00:00:03'),
    k('+U', 3, 'cy', '0.01', '2024-01-01 00:00:06'),
  ]);
  assert.deepEqual(
    r.dead.map((d) => [d.offset, d.reason]),
    [
      [6, 'unknown Debezium op "x" (expected c, r, u or d)'],
      [7, "not valid JSON: Unexpected token 'o', \"not json\" is not valid JSON"],
      [8, `'after' row: column id: expected BIGINT: an integer within 64 bits (beyond 2^53 a JSON number loses digits: write it as a string), got "five"`],
    ],
  );
});
