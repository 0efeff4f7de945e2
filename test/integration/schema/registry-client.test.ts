// The `registry:` schema source against a local server speaking the Confluent Schema Registry
// REST protocol (test/fixtures/schemas/confluent-registry-protocol-fixture.ts): each schema
// type, references, versions, compatibility, caching, and every failure path.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { closedPort, startRegistryFixture, type RegistryFixture } from '../../fixtures/schemas/confluent-registry-protocol-fixture.ts';
import { codes, columns, loaderFor, optionSpan, specsDir } from '../../unit/schema/helpers.ts';

const ordersAvsc = readFileSync(path.join(specsDir, 'schemas/orders.avsc'), 'utf8');
const clicksProto = readFileSync(path.join(specsDir, 'schemas/clicks.proto'), 'utf8');
const sensorJson = readFileSync(path.join(specsDir, 'schemas/sensor.schema.json'), 'utf8');

const ordersV1 = JSON.stringify({
  type: 'record',
  name: 'Order',
  namespace: 'com.example.shop',
  fields: [
    { name: 'order_id', type: 'string' },
    { name: 'amount', type: 'double' },
  ],
});
const addressAvsc = JSON.stringify({ type: 'record', name: 'Address', namespace: 'com.example', fields: [{ name: 'city', type: 'string' }] });
const customerAvsc = JSON.stringify({
  type: 'record',
  name: 'Customer',
  namespace: 'com.example',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'home', type: 'com.example.Address' },
  ],
});
const moneyProto = 'syntax = "proto3";\npackage shop.common;\nmessage Money { string currency = 1; int64 units = 2; }\n';
const paymentProto =
  'syntax = "proto3";\npackage shop.v1;\nimport "shop/common/money.proto";\nmessage Payment { string id = 1; shop.common.Money amount = 2; }\n';

const addressJson = JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
const visitsJson = JSON.stringify({ type: 'object', properties: { visitor: { type: 'string' }, where: { $ref: 'address.json' } }, required: ['visitor'] });

let reg: RegistryFixture;
before(async () => {
  reg = await startRegistryFixture({
    subjects: {
      'orders-value': [{ schema: ordersV1 }, { schema: ordersAvsc }],
      'clicks-value': [{ schema: clicksProto, schemaType: 'PROTOBUF' }],
      'sensor-value': [{ schema: sensorJson, schemaType: 'JSON' }],
      'address-value': [{ schema: addressAvsc }],
      'customers-value': [{ schema: customerAvsc, references: [{ name: 'com.example.Address', subject: 'address-value', version: 1 }] }],
      'money-value': [{ schema: moneyProto, schemaType: 'PROTOBUF' }],
      'payments-value': [
        { schema: paymentProto, schemaType: 'PROTOBUF', references: [{ name: 'shop/common/money.proto', subject: 'money-value', version: 1 }] },
      ],
      'xml-value': [{ schema: '<x/>', schemaType: 'XML' }],
      'shop-events': [{ schema: 'syntax = "proto3";\npackage shop.v1;\nmessage Order { string id = 1; }\nmessage Refund { string order_id = 1; int64 cents = 2; }\n', schemaType: 'PROTOBUF' }],
      'broken-value': [{ schema: '{"type": "record", "name": "X" "fields": []}' }],
      'address-json': [{ schema: addressJson, schemaType: 'JSON' }],
      'visits-value': [{ schema: visitsJson, schemaType: 'JSON', references: [{ name: 'address.json', subject: 'address-json', version: 1 }] }],
    },
    subjectConfig: { 'orders-value': 'FULL_TRANSITIVE' },
    globalCompatibility: 'NONE',
    raw: { '/subjects/garbage-value/versions/latest': { status: 200, body: '<html>proxy login</html>' } },
  });
});
after(() => reg.close());

async function loadRef(ref: string, format: string | null, url: string | undefined, timeoutMs?: number) {
  const bag = new DiagnosticBag();
  const env: Record<string, string> = url ? { PIPEC_SCHEMA_REGISTRY_URL: url } : {};
  const schema = await loaderFor(specsDir, env, timeoutMs).load({ ref, format, span: optionSpan }, bag);
  return { schema, bag };
}

test('an Avro subject (schemaType absent = AVRO) maps like the file, with id, version and compatibility', async () => {
  const { schema, bag } = await loadRef('registry:orders-value', 'avro', reg.url);
  assert.deepEqual(bag.items, []);
  assert.deepEqual(columns(schema), [
    'order_id STRING NOT NULL',
    'customer_id BIGINT NOT NULL',
    'amount DECIMAL(12, 2) NOT NULL',
    'order_ts TIMESTAMP(3) NOT NULL',
    'status STRING NOT NULL',
    'coupon STRING',
  ]);
  assert.equal(schema!.description, 'registry:orders-value (version 2)');
  // orders-value holds ids 1 and 2 (subjects are numbered in declaration order).
  assert.deepEqual(schema!.registry, { subject: 'orders-value', version: 2, id: 2 });
  assert.equal(schema!.compatibility, 'FULL_TRANSITIVE');
});

test('an explicit version is read, not the latest', async () => {
  const { schema } = await loadRef('registry:orders-value:1', 'avro', reg.url);
  assert.deepEqual(columns(schema), ['order_id STRING NOT NULL', 'amount DOUBLE NOT NULL']);
  assert.equal(schema!.description, 'registry:orders-value (version 1)');
});

test('without a subject-level config the global compatibility applies', async () => {
  const { schema } = await loadRef('registry:clicks-value', 'protobuf', reg.url);
  assert.equal(schema!.compatibility, 'NONE');
  assert.equal(reg.requests.includes('/config/clicks-value') && reg.requests.includes('/config'), true);
});

test('PROTOBUF and JSON subjects map through their formats', async () => {
  const p = await loadRef('registry:clicks-value', 'protobuf', reg.url);
  assert.deepEqual(codes(p.bag), []);
  assert.equal(p.schema!.messageName, 'shop.web.v1.Click');
  assert.equal(columns(p.schema)[5], 'event_time TIMESTAMP_LTZ(9)');
  const j = await loadRef('registry:sensor-value', 'json', reg.url);
  assert.deepEqual(codes(j.bag), []);
  assert.equal(columns(j.schema)[4], 'reading_ts TIMESTAMP_LTZ(3) NOT NULL');
  assert.equal(j.schema!.kind, 'json-schema');
});

test('references are fetched: an Avro named type and a Protobuf import from other subjects', async () => {
  const a = await loadRef('registry:customers-value', 'avro', reg.url);
  assert.deepEqual(codes(a.bag), []);
  assert.deepEqual(columns(a.schema), ['id BIGINT NOT NULL', 'home ROW<city STRING NOT NULL> NOT NULL']);
  const p = await loadRef('registry:payments-value', 'protobuf', reg.url);
  assert.deepEqual(codes(p.bag), []);
  assert.deepEqual(columns(p.schema), ['id STRING NOT NULL', 'amount ROW<currency STRING NOT NULL, units BIGINT NOT NULL>']);
});

test('a JSON Schema $ref to another subject is resolved through the references', async () => {
  const { schema, bag } = await loadRef('registry:visits-value', 'json', reg.url);
  assert.deepEqual(codes(bag), []);
  assert.deepEqual(columns(schema), ['visitor STRING NOT NULL', 'where ROW<city STRING NOT NULL>']);
});

test('a URL that is not http(s) is reported without a request', async () => {
  const a = await loadRef('registry:orders-value', 'avro', 'localhost:8081');
  assert.deepEqual(codes(a.bag), ['registry-unreachable']);
  assert.match(a.bag.items[0]!.message, /PIPEC_SCHEMA_REGISTRY_URL must be an http:\/\/ or https:\/\/ URL, not localhost:$/);
  const b = await loadRef('registry:orders-value', 'avro', 'not a url');
  assert.match(b.bag.items[0]!.message, /PIPEC_SCHEMA_REGISTRY_URL is not a URL/);
});

test('each subject version is fetched once per build, however many sources name it', async () => {
  const loader = loaderFor(specsDir, { PIPEC_SCHEMA_REGISTRY_URL: reg.url });
  const before = reg.requests.filter((r) => r === '/subjects/sensor-value/versions/latest').length;
  const bag = new DiagnosticBag();
  await loader.load({ ref: 'registry:sensor-value', format: 'json', span: optionSpan }, bag);
  await loader.load({ ref: 'registry:sensor-value', format: 'json', span: optionSpan }, bag);
  assert.equal(reg.requests.filter((r) => r === '/subjects/sensor-value/versions/latest').length - before, 1);
  assert.deepEqual(bag.items, []);
});

// Messages name the registry by the variable its URL came from, never the value (a URL may hold
// credentials; docs/security.md "Secrets and profiles").
const REGISTRY = '${PIPEC_SCHEMA_REGISTRY_URL}';

test('an unknown subject and an unknown version are 404 errors naming the registry and subject', async () => {
  const a = await loadRef('registry:nope-value', null, reg.url);
  assert.deepEqual(codes(a.bag), ['registry-subject-not-found']);
  assert.equal(a.bag.items[0]!.message, `the schema registry at ${REGISTRY} has no subject 'nope-value': Subject 'nope-value' not found.`);
  assert.deepEqual(a.bag.items[0]!.span, optionSpan);
  const b = await loadRef('registry:orders-value:9', null, reg.url);
  assert.equal(b.bag.items[0]!.message, `the schema registry at ${REGISTRY} has no version 9 of subject 'orders-value': Version 9 not found.`);
});

test('a body that is not the protocol is a bad-response error', async () => {
  const { bag } = await loadRef('registry:garbage-value', null, reg.url);
  assert.deepEqual(codes(bag), ['registry-bad-response']);
  assert.match(bag.items[0]!.message, /HTTP 200 with a body that is not JSON: "<html>proxy login<\/html>"/);
});

test('a Protobuf subject maps its first message unless #Message names another', async () => {
  const first = await loadRef('registry:shop-events', 'protobuf', reg.url);
  assert.deepEqual(codes(first.bag), []);
  assert.equal(first.schema!.messageName, 'shop.v1.Order');
  const named = await loadRef('registry:shop-events:1#Refund', 'protobuf', reg.url);
  assert.deepEqual(columns(named.schema), ['order_id STRING NOT NULL', 'cents BIGINT NOT NULL']);
  assert.equal(named.schema!.description, 'registry:shop-events (version 1)#Refund');
  const wrong = await loadRef('registry:shop-events#Refnd', 'protobuf', reg.url);
  assert.equal(wrong.bag.items[0]!.message, "'registry:shop-events (version 1)' has no message 'Refnd' (did you mean 'Refund'?)");
  const avro = await loadRef('registry:orders-value#Order', 'avro', reg.url);
  assert.deepEqual(codes(avro.bag), ['schema-ref-invalid']);
});

test('a malformed schema text in the registry is a parse error naming subject, version, line and column', async () => {
  const { bag } = await loadRef('registry:broken-value', 'avro', reg.url);
  assert.deepEqual(codes(bag), ['schema-parse-error']);
  // `{"type": "record", "name": "X" "fields": []}`: the parser stops at `"fields"`, offset 31.
  assert.equal(bag.items[0]!.message, "cannot parse 'registry:broken-value (version 1):1:32': Expected ',' or '}' after property value");
  assert.deepEqual(bag.items[0]!.labels, []);
});

test('403 is reported like 401', async () => {
  const forbidding = await startRegistryFixture({ subjects: {}, raw: { '/subjects/orders-value/versions/latest': { status: 403, body: '{"error_code":40301,"message":"User is denied operation Read on Subject: orders-value"}' } } });
  try {
    const { bag } = await loadRef('registry:orders-value', 'avro', forbidding.url);
    assert.deepEqual(codes(bag), ['registry-unauthorized']);
    assert.equal(bag.items[0]!.params.status, 403);
  } finally {
    await forbidding.close();
  }
});

test('an unsupported schemaType and a format mismatch are coded errors', async () => {
  assert.deepEqual(codes((await loadRef('registry:xml-value', null, reg.url)).bag), ['registry-schema-type-unsupported']);
  const m = await loadRef('registry:orders-value', 'json', reg.url);
  assert.deepEqual(codes(m.bag), ['schema-format-mismatch']);
  assert.match(m.bag.items[0]!.message, /format 'json' cannot be read with the Avro schema/);
});

test('no PIPEC_SCHEMA_REGISTRY_URL: a coded error, no request', async () => {
  const { bag } = await loadRef('registry:orders-value', 'avro', undefined);
  assert.deepEqual(codes(bag), ['registry-url-missing']);
});

test('a refused connection is registry-unreachable', async () => {
  const port = await closedPort();
  const { bag } = await loadRef('registry:orders-value', 'avro', `http://127.0.0.1:${port}`);
  assert.deepEqual(codes(bag), ['registry-unreachable']);
  assert.equal(bag.items[0]!.message, `cannot reach the schema registry at ${REGISTRY} for subject 'orders-value': connection refused`);
});

test('a registry that does not answer in time is registry-unreachable after the timeout', async () => {
  const slow = await startRegistryFixture({ subjects: { 'orders-value': [{ schema: ordersAvsc }] }, delayMs: 10_000 });
  try {
    const t0 = Date.now();
    const { bag } = await loadRef('registry:orders-value', 'avro', slow.url, 150);
    assert.deepEqual(codes(bag), ['registry-unreachable']);
    assert.match(bag.items[0]!.message, /no answer within 150 ms$/);
    assert.ok(Date.now() - t0 < 5000, 'gave up at the timeout, not when the server answered (after 10 s)');
  } finally {
    await slow.close();
  }
});

test('credentials in the URL are sent as Basic auth and never appear in messages', async () => {
  const secured = await startRegistryFixture({ subjects: { 'orders-value': [{ schema: ordersAvsc }] }, basicAuth: 'alice:s3cr:t' });
  try {
    const host = secured.url.replace('http://', '');
    const ok = await loadRef('registry:orders-value', 'avro', `http://alice:s3cr%3At@${host}`);
    assert.deepEqual(codes(ok.bag), []);
    assert.equal(secured.authHeaders[0], 'Basic ' + Buffer.from('alice:s3cr:t').toString('base64'));
    const bad = await loadRef('registry:orders-value', 'avro', `http://alice:wrong@${host}`);
    assert.deepEqual(codes(bad.bag), ['registry-unauthorized']);
    const text = JSON.stringify(bad.bag.items);
    assert.equal(bad.bag.items[0]!.message, `the schema registry at http://***@${host} answered 401 for subject 'orders-value'`);
    assert.ok(!text.includes('wrong') && !text.includes('alice'), text);
  } finally {
    await secured.close();
  }
});

test('a registry reference that is not registry:subject[:version] is a reference error', async () => {
  const { bag } = await loadRef('registry:', null, reg.url);
  assert.deepEqual(codes(bag), ['schema-ref-invalid']);
  const b = await loadRef('regsitry:orders-value', null, reg.url);
  assert.equal(b.bag.items[0]!.message, "schema 'regsitry:orders-value' is not a schema reference: unknown scheme 'regsitry:'");
});
