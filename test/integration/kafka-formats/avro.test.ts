// Avro in the Confluent wire format through a whole pipeline (.pipe.sql → runtime → file
// sink), writer schemas fetched by id from a local server speaking the registry protocol:
// logical types and 64-bit values, two writer schema ids on one topic (the older one lacks
// projected fields → reader default / NULL), garbage records → dead letters with exact
// coordinates, Basic auth from the URL, and a registry that is down → a clear error.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import { closedPort, startRegistryFixture, type RegistryFixture } from '../../fixtures/schemas/confluent-registry-protocol-fixture.ts';
import { avroConfluent } from '../../support/confluent-wire.ts';
import { createTopic, kafkaEnv, produceRaw, runSpec, unique } from './helpers.ts';

const v1Fields = [
  { name: 'order_id', type: 'string' },
  { name: 'notes', type: 'string' },
  { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
  { name: 'order_ts', type: { type: 'long', logicalType: 'timestamp-millis' } },
  { name: 'ts_us', type: { type: 'long', logicalType: 'timestamp-micros' } },
  { name: 'qty', type: 'int' },
  { name: 'tags', type: { type: 'array', items: 'string' } },
  { name: 'big', type: 'long' },
  { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
  { name: 'city', type: ['null', 'string'], default: null },
];
const v1 = { type: 'record', name: 'Order', namespace: 'shop', fields: v1Fields };
const v2 = {
  ...v1,
  fields: [...v1Fields, { name: 'channel', type: ['null', 'string'], default: null }, { name: 'priority', type: 'int', default: 5 }],
};

// The test's own writer: avsc with BigInt longs (its documented recipe), no logical types —
// decimals, timestamps and enums are written as their raw Avro values, computed by hand.
const bigLong = avro.types.LongType.__with({
  fromBuffer: (b: Buffer) => b.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(n));
    return b;
  },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});
const writer = (s: object) =>
  avro.Type.forSchema(s as avro.Schema, { typeHook: (x: any) => (x === 'long' || x?.type === 'long' ? (bigLong as unknown as avro.Type) : undefined) });
const w1 = writer(v1);
const w2 = writer(v2);

let reg: RegistryFixture;
before(async () => {
  reg = await startRegistryFixture({ subjects: { 'orders-value': [{ schema: JSON.stringify(v1) }, { schema: JSON.stringify(v2) }] }, basicAuth: 'svc:s3cret' });
});
after(async () => {
  await reg.close();
  await (await kafkaEnv()).admin.disconnect();
});

const authed = (url: string): string => url.replace('http://', 'http://svc:s3cret@');

function spec(topic: string): string {
  return `PIPELINE avro_orders WITH (checkpoint_interval = '1 s');
CREATE SOURCE orders WITH (
  connector = 'kafka', topic = '${topic}', format = 'avro', schema = 'registry:orders-value',
  startup = 'earliest', group_id = '${unique('g')}'
);
CREATE VIEW picked AS SELECT order_id, amount, order_ts, ts_us, qty, big, status, city, channel, priority FROM orders;
CREATE SINK out FROM picked WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;
}

test('avro-confluent: values, logical types and int64 are exact; an older writer schema gives reader defaults; garbage is dead-lettered', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'avro');
  const id1 = reg.idOf('orders-value', 1);
  const id2 = reg.idOf('orders-value', 2);
  const a = { order_id: 'A', notes: 'skip me', amount: Buffer.from([0x04, 0xd2]), order_ts: 1700000000123n, ts_us: 1700000000123456n, qty: 3, tags: ['x', 'y'], big: 9007199254740993n, status: 'PAID', city: null };
  const b = {
    order_id: 'B', notes: '', amount: Buffer.from([0xfb]), order_ts: 0n, ts_us: -1n, qty: -7, tags: [], big: -9223372036854775808n, status: 'NEW', city: 'Paris', channel: 'web', priority: 1,
  };
  const good2 = avroConfluent(w2, id2, b);
  await produceRaw(topic, 0, [
    avroConfluent(w1, id1, a), // offset 0
    Buffer.concat([Buffer.from([1]), good2.subarray(1)]), // 1: bad magic byte
    Buffer.concat([Buffer.from([0, 0, 0, 0x10, 0x92]), good2.subarray(5)]), // 2: unknown id 4242
    good2.subarray(0, good2.length - 3), // 3: truncated
    Buffer.from([0, 0, 0]), // 4: shorter than the header
    good2, // 5
  ]);
  const env = { PIPEC_KAFKA_BROKERS: brokers, PIPEC_SCHEMA_REGISTRY_URL: authed(reg.url) };
  const r = await runSpec(spec(topic), env, { rows: 2, dead: 4 });
  assert.equal(r.exitCode, 0, r.stderr);
  // By hand: 0x04d2 = 1234 → 12.34; 0xfb = -5 → -0.05; 1700000000123 ms = 2023-11-14 22:13:20.123;
  // -1 µs floors to -1 ms; v1 has no channel (default null) and no priority (default 5).
  assert.deepEqual(r.out, [
    { order_id: 'A', amount: '12.34', order_ts: '2023-11-14 22:13:20.123', ts_us: '2023-11-14 22:13:20.123', qty: 3, big: '9007199254740993', status: 'PAID', city: null, channel: null, priority: 5 },
    { order_id: 'B', amount: '-0.05', order_ts: '1970-01-01 00:00:00.000', ts_us: '1969-12-31 23:59:59.999', qty: -7, big: '-9223372036854775808', status: 'NEW', city: 'Paris', channel: 'web', priority: 1 },
  ]);
  assert.deepEqual(
    r.dead.map((d) => [d.source, d.topic, d.partition, d.offset]),
    [1, 2, 3, 4].map((o) => ['orders', topic, '0', o]),
  );
  const reasons = r.dead.map((d) => String(d.reason));
  assert.match(reasons[0]!, /first byte is 0x01, not the magic byte 0x00/);
  assert.match(reasons[1]!, /unknown schema id 4242 \(registry http:\/\/\*\*\*@127\.0\.0\.1:\d+: Schema 4242 not found\)/);
  assert.match(reasons[2]!, new RegExp(`truncated \\(writer schema id ${id2}\\)`));
  assert.match(reasons[3]!, /3 bytes is shorter than the 5-byte Confluent wire-format header/);
  // Binary dead letters keep the bytes, base64-encoded.
  assert.deepEqual(Buffer.from(String(r.dead[2]!.record), 'base64'), good2.subarray(0, good2.length - 3));
  assert.ok(!JSON.stringify(r.dead).includes('s3cret'));
  // Each writer schema was fetched once, by id, with the Basic auth from the URL.
  assert.deepEqual(reg.requests.filter((p) => p.startsWith('/schemas/ids/')).sort(), [`/schemas/ids/${id1}`, `/schemas/ids/${id2}`, '/schemas/ids/4242'].sort());
  assert.ok(reg.authHeaders.every((h) => h === 'Basic ' + Buffer.from('svc:s3cret').toString('base64')));
});

test('avro-confluent: a NOT NULL column the writer schema lacks (no default) dead-letters its records, naming the field and schema id', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'avro-nn');
  // Reader: declared columns only (no schema option) — the registry still names the writer.
  const s = `PIPELINE avro_nn WITH (checkpoint_interval = '1 s');
CREATE SOURCE orders (order_id STRING NOT NULL, priority INT NOT NULL) WITH (
  connector = 'kafka', topic = '${topic}', format = 'avro', startup = 'earliest', group_id = '${unique('g')}'
);
CREATE VIEW picked AS SELECT order_id, priority FROM orders;
CREATE SINK out FROM picked WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;
  const id1 = reg.idOf('orders-value', 1);
  const id2 = reg.idOf('orders-value', 2);
  const base = { notes: '', amount: Buffer.from([1]), order_ts: 1n, ts_us: 1n, qty: 1, tags: [], big: 1n, status: 'NEW', city: null };
  await produceRaw(topic, 0, [avroConfluent(w1, id1, { ...base, order_id: 'old' }), avroConfluent(w2, id2, { ...base, order_id: 'new', channel: null, priority: 9 })]);
  const r = await runSpec(s, { PIPEC_KAFKA_BROKERS: brokers, PIPEC_SCHEMA_REGISTRY_URL: authed(reg.url) }, { rows: 1, dead: 1 });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.out, [{ order_id: 'new', priority: 9 }]);
  assert.equal(r.dead.length, 1);
  assert.equal(r.dead[0]!.offset, 0);
  assert.equal(r.dead[0]!.reason, `field 'priority' is not in writer schema id ${id1} and has no default, but the column is NOT NULL`);
});

test('avro-confluent: a registry that is down stops the pipeline with a clear error (URL without credentials, schema id, record coordinates)', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'avro-down');
  const id1 = reg.idOf('orders-value', 1);
  await produceRaw(topic, 0, [avroConfluent(w1, id1, { order_id: 'A', notes: '', amount: Buffer.from([1]), order_ts: 1n, ts_us: 1n, qty: 1, tags: [], big: 1n, status: 'NEW', city: null })]);
  const port = await closedPort();
  // Compiled against the registry, run while it is unreachable.
  const s = spec(topic);
  const compiled = { PIPEC_KAFKA_BROKERS: brokers, PIPEC_SCHEMA_REGISTRY_URL: authed(reg.url) };
  const dir = await import('../../fixtures/runtime/run-helpers.ts').then((m) => m.tempDir('pipec-fmt-'));
  const { writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  writeFileSync(path.join(dir, 'pipeline.pipe.sql'), s);
  const { compileFile } = await import('../../../src/build/compile.ts');
  const { runPipeline } = await import('../../../targets/runtime/index.ts');
  const c = await compileFile('pipeline.pipe.sql', { cwd: dir, env: { get: (n) => compiled[n as keyof typeof compiled] } });
  assert.ok(c.plan);
  let stderr = '';
  const t0 = Date.now();
  const x = await runPipeline(c.plan, {
    baseDir: dir,
    env: { PIPEC_KAFKA_BROKERS: brokers, PIPEC_SCHEMA_REGISTRY_URL: `http://svc:s3cret@127.0.0.1:${port}` },
    handleSignals: false,
    stdout: () => {},
    stderr: (t) => (stderr += t),
  });
  assert.equal(x.exitCode, 1);
  assert.ok(Date.now() - t0 < 30_000);
  const first = stderr.split('\n')[0]!;
  assert.match(first, new RegExp(`schema registry http://\\*\\*\\*@127\\.0\\.0\\.1:${port} is unreachable \\(connection refused\\) while reading schema id ${id1} for the record at ${topic}-0 offset 0`));
  assert.ok(!stderr.includes('s3cret'));
});
