// `file:` schemas describe plain values (Flink's avro / protobuf formats): Avro binary and
// Protobuf bytes without the Confluent header, decoded with the schema the compiler embedded
// in the pipeline — no registry at run time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import protobuf from 'protobufjs';
import { createTopic, kafkaEnv, produceRaw, runSpec, unique } from './helpers.ts';

after(async () => {
  await (await kafkaEnv()).admin.disconnect();
});

test('avro with a file: schema reads plain Avro binary; a value with a Confluent header is a dead letter', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'avro-file');
  const schema = { type: 'record', name: 'Reading', fields: [{ name: 'sensor', type: 'string' }, { name: 'skip', type: 'bytes' }, { name: 'day', type: { type: 'int', logicalType: 'date' } }, { name: 'temp', type: 'double' }] };
  const t = avro.Type.forSchema(schema as avro.Schema);
  const good = t.toBuffer({ sensor: 's1', skip: Buffer.from('xx'), day: 19700, temp: 21.5 });
  await produceRaw(topic, 0, [good, Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), good])]);
  const s = `PIPELINE avro_file WITH (checkpoint_interval = '1 s');
CREATE SOURCE readings WITH (connector = 'kafka', topic = '${topic}', format = 'avro', schema = 'file:reading.avsc', startup = 'earliest', group_id = '${unique('g')}');
CREATE VIEW v AS SELECT sensor, day, temp FROM readings;
CREATE SINK out FROM v WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;
  const r = await runSpec(s, { PIPEC_KAFKA_BROKERS: brokers }, { rows: 1, dead: 1 }, { 'reading.avsc': JSON.stringify(schema) });
  assert.equal(r.exitCode, 0, r.stderr);
  // Day 19700 after 1970-01-01 is 2023-12-09.
  assert.deepEqual(r.out, [{ sensor: 's1', day: '2023-12-09', temp: 21.5 }]);
  assert.equal(r.dead.length, 1);
  assert.equal(r.dead[0]!.offset, 1);
  assert.match(String(r.dead[0]!.reason), /bytes follow the Avro record|does not match|truncated/);
});

test('protobuf with a file: schema and #Message reads plain Protobuf bytes', async () => {
  const { brokers } = await kafkaEnv();
  const topic = await createTopic(1, 'proto-file');
  const proto = 'syntax = "proto3";\npackage iot;\nmessage Meta { string x = 1; }\nmessage Reading { string sensor = 1; sint64 count = 2; bytes blob = 3; repeated int32 skip = 4; }\n';
  const root = protobuf.parse(proto, { keepCase: true }).root;
  const R = root.lookupType('iot.Reading');
  await produceRaw(topic, 0, [Buffer.from(R.encode(R.fromObject({ sensor: 's1', count: '-9007199254740995', blob: Buffer.from('hi'), skip: [1, 2] })).finish())]);
  const s = `PIPELINE proto_file WITH (checkpoint_interval = '1 s');
CREATE SOURCE readings WITH (connector = 'kafka', topic = '${topic}', format = 'protobuf', schema = 'file:reading.proto#Reading', startup = 'earliest', group_id = '${unique('g')}');
CREATE VIEW v AS SELECT sensor, count, blob FROM readings;
CREATE SINK out FROM v WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;
  const r = await runSpec(s, { PIPEC_KAFKA_BROKERS: brokers }, { rows: 1 }, { 'reading.proto': proto });
  assert.equal(r.exitCode, 0, r.stderr);
  // 'hi' in base64 is aGk=; the count is beyond 2^53, so the NDJSON sink writes it as a string.
  assert.deepEqual(r.out, [{ sensor: 's1', count: '-9007199254740995', blob: 'aGk=' }]);
  assert.deepEqual(r.dead, []);
});
