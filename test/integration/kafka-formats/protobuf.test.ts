// Protobuf in the Confluent wire format through a whole pipeline: the message-index array
// picks the second message of the writer's .proto; int64 beyond 2^53, enums by name,
// google.protobuf.Timestamp, proto3 optional, a nested message and a repeated field reach
// the sink exactly; an older writer schema lacks fields (proto3 defaults / NULL); garbage
// (bad message index, truncated payload) is dead-lettered with exact counts.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { startRegistryFixture, type RegistryFixture } from '../../fixtures/schemas/confluent-registry-protocol-fixture.ts';
import { protobufConfluent } from '../../support/confluent-wire.ts';
import { createTopic, kafkaEnv, produceRaw, runSpec, unique } from './helpers.ts';

const v1 = `syntax = "proto3";
package shop.v1;
import "google/protobuf/timestamp.proto";
message Other { string x = 1; }
message Click {
  string id = 1;
  int64 big = 2;
  enum Kind { UNKNOWN = 0; VIEW = 1; BUY = 2; }
  Kind kind = 3;
  google.protobuf.Timestamp at = 4;
  optional int32 qty = 5;
  message Device { string os = 1; int32 ver = 2; }
  Device device = 6;
  repeated string tags = 7;
  string unused = 8;
  double price = 9;
`;
const v1Text = v1 + '}\n';
const v2Text = v1 + '  string campaign = 10;\n  int32 score = 11;\n  optional string coupon = 12;\n}\n';

const typeOf = (text: string): protobuf.Type => {
  const root = protobuf.parse(text, { keepCase: true }).root;
  root.addJSON((protobuf.common.get('google/protobuf/timestamp.proto') as { nested: Record<string, protobuf.AnyNestedObject> }).nested);
  root.resolveAll();
  return root.lookupType('shop.v1.Click');
};
const c1 = typeOf(v1Text);
const c2 = typeOf(v2Text);

let reg: RegistryFixture;
before(async () => {
  reg = await startRegistryFixture({ subjects: { 'clicks-value': [{ schema: v1Text, schemaType: 'PROTOBUF' }, { schema: v2Text, schemaType: 'PROTOBUF' }] } });
});
after(async () => {
  await reg.close();
  await (await kafkaEnv()).admin.disconnect();
});

test('protobuf-confluent: message index, 64-bit, enum, Timestamp, optional, nested and repeated values; older writer → defaults; garbage → dead letters', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'proto');
  const id1 = reg.idOf('clicks-value', 1);
  const id2 = reg.idOf('clicks-value', 2);
  const a = { id: 'a', big: '9007199254740993', kind: 'BUY', at: { seconds: 1700000000, nanos: 123456789 }, device: { os: 'ios', ver: 17 }, tags: ['x', 'y'], unused: 'zzz', price: 2.5 };
  const b = { id: 'b', big: '-5', kind: 'VIEW', qty: 0, campaign: 'spring', score: 7, coupon: 'C1' };
  const good = protobufConfluent(c2, id2, [1], b);
  await produceRaw(topic, 0, [
    protobufConfluent(c1, id1, [1], a), // 0: written by v1: no campaign, score, coupon
    good, // 1
    Buffer.concat([good.subarray(0, 5), Buffer.from([2, 10]), good.subarray(7)]), // 2: index [5]: no such message
    good.subarray(0, good.length - 2), // 3: truncated
  ]);
  const s = `PIPELINE proto_clicks WITH (checkpoint_interval = '1 s');
CREATE SOURCE clicks WITH (
  connector = 'kafka', topic = '${topic}', format = 'protobuf', schema = 'registry:clicks-value#Click',
  startup = 'earliest', group_id = '${unique('g')}'
);
CREATE VIEW picked AS SELECT id, big, kind, at, qty, device, tags, price, campaign, score, coupon FROM clicks;
CREATE SINK out FROM picked WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;
  const r = await runSpec(s, { PIPEC_KAFKA_BROKERS: brokers, PIPEC_SCHEMA_REGISTRY_URL: reg.url }, { rows: 2, dead: 2 });
  assert.equal(r.exitCode, 0, r.stderr);
  // By hand: 1700000000 s + 123456789 ns = 2023-11-14T22:13:20.123Z (ms precision in the runtime);
  // absent proto3 scalars are their zero value, absent optional/message fields NULL.
  assert.deepEqual(r.out, [
    { id: 'a', big: '9007199254740993', kind: 'BUY', at: '2023-11-14T22:13:20.123Z', qty: null, device: { os: 'ios', ver: 17 }, tags: ['x', 'y'], price: 2.5, campaign: '', score: 0, coupon: null },
    { id: 'b', big: -5, kind: 'VIEW', at: null, qty: 0, device: null, tags: [], price: 0, campaign: 'spring', score: 7, coupon: 'C1' },
  ]);
  assert.deepEqual(
    r.dead.map((d) => [d.topic, d.partition, d.offset]),
    [2, 3].map((o) => [topic, '0', o]),
  );
  assert.equal(r.dead[0]!.reason, `message index [5] names no message of writer schema id ${id2}`);
  assert.match(String(r.dead[1]!.reason), new RegExp(`cannot be read as message shop\\.v1\\.Click of writer schema id ${id2}`));
});
