// Protobuf → SQL columns: the spec's clicks.proto, every scalar and well-known type, presence
// rules (proto3 vs optional vs proto2), imports, and the errors for message selection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codes, columns, fixturesDir, load, optionSpan, specsDir } from './helpers.ts';

test('specs/schemas/clicks.proto#Click maps nested, map, repeated, enum and Timestamp fields', async () => {
  const { schema, bag } = await load(specsDir, 'file:schemas/clicks.proto#Click', 'protobuf');
  assert.deepEqual(bag.items, []);
  assert.deepEqual(columns(schema), [
    'user_id STRING NOT NULL',
    'session_id STRING NOT NULL',
    'session_seq INT NOT NULL',
    'url STRING NOT NULL',
    'referrer STRING',
    'event_time TIMESTAMP_LTZ(9)',
    'attributes MAP<STRING NOT NULL, STRING NOT NULL> NOT NULL',
    'tags ARRAY<STRING NOT NULL> NOT NULL',
    'device ROW<os STRING NOT NULL, browser STRING NOT NULL, screen_width INT NOT NULL, screen_height INT NOT NULL>',
    'kind STRING NOT NULL',
  ]);
  assert.equal(schema!.messageName, 'shop.web.v1.Click');
  assert.equal(schema!.kind, 'protobuf');
  assert.equal(schema!.description, 'file:schemas/clicks.proto#Click');
});

test('a file with one message needs no #Message; the full name works too', async () => {
  const a = await load(specsDir, 'file:schemas/clicks.proto');
  assert.deepEqual(codes(a.bag), []);
  assert.equal(a.schema!.messageName, 'shop.web.v1.Click');
  const b = await load(specsDir, 'file:schemas/clicks.proto#shop.web.v1.Click');
  assert.deepEqual(columns(b.schema), columns(a.schema));
});

test('every scalar, wrapper and well-known type maps through the tables', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:proto/scalars.proto');
  assert.deepEqual(bag.items.map((d) => d.message), []);
  assert.deepEqual(columns(schema), [
    'd DOUBLE NOT NULL',
    'f FLOAT NOT NULL',
    'i32 INT NOT NULL',
    's32 INT NOT NULL',
    'sf32 INT NOT NULL',
    'u32 BIGINT NOT NULL',
    'f32 BIGINT NOT NULL',
    'i64 BIGINT NOT NULL',
    's64 BIGINT NOT NULL',
    'sf64 BIGINT NOT NULL',
    'flag BOOLEAN NOT NULL',
    'name STRING NOT NULL',
    'blob BYTES NOT NULL',
    'maybe INT',
    'nick STRING',
    'big BIGINT',
    'at TIMESTAMP_LTZ(9)',
    'extra STRING',
    'email STRING',
    'phone STRING',
    'by_id MAP<INT NOT NULL, ROW<key STRING NOT NULL>> NOT NULL',
    'inners ARRAY<ROW<key STRING NOT NULL> NOT NULL> NOT NULL',
    'level STRING NOT NULL',
  ]);
});

test('uint64 and fixed64 map to BIGINT with an overflow warning per field', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:proto/unsigned.proto');
  assert.deepEqual(columns(schema), ['total BIGINT NOT NULL', 'checksum BIGINT NOT NULL']);
  assert.deepEqual(codes(bag), ['proto-uint64-as-bigint', 'proto-uint64-as-bigint']);
  assert.equal(bag.items[0]!.severity, 'warning');
  assert.equal(bag.items[0]!.message, "field 'total' is uint64; values at or above 2^63 do not fit BIGINT and wrap to negative numbers");
});

test('proto2: required is NOT NULL, optional is nullable', async () => {
  const { schema } = await load(fixturesDir, 'file:proto/proto2.proto');
  assert.deepEqual(columns(schema), ['id STRING NOT NULL', 'count INT', 'labels ARRAY<STRING NOT NULL> NOT NULL']);
});

test('several messages and no #Message: the error lists them', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:proto/several.proto');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['proto-message-required']);
  assert.equal(bag.items[0]!.message, "'proto/several.proto' defines several messages (Order, Refund, Shipment); name one with '#Message'");
  assert.equal(bag.items[0]!.help, "write 'file:proto/several.proto#Order'");
  assert.deepEqual(bag.items[0]!.span, optionSpan);
});

test('a misspelt #Message gets a suggestion', async () => {
  const { bag } = await load(fixturesDir, 'file:proto/several.proto#Refnud');
  assert.deepEqual(codes(bag), ['proto-message-not-found']);
  assert.equal(bag.items[0]!.message, "'proto/several.proto' has no message 'Refnud' (did you mean 'Refund'?)");
});

test('a syntax error names the line of the .proto file', async () => {
  const { bag } = await load(fixturesDir, 'file:proto/syntax-error.proto');
  assert.deepEqual(codes(bag), ['schema-parse-error']);
  const d = bag.items[0]!;
  // protobufjs stops at `string` on line 5 (the `;` after `int32 b = 2` is missing): `  string c = 3;`
  // has it at column 3.
  assert.equal(d.params.line, 5);
  assert.equal(d.params.column, 3);
  assert.match(d.message, /^cannot parse 'proto\/syntax-error\.proto:5:3': illegal token 'string'/);
  assert.deepEqual([d.labels[0]!.span.start.line, d.labels[0]!.span.start.column], [5, 3]);
  assert.deepEqual(d.span, optionSpan);
});

test('recursive messages are refused', async () => {
  const { bag } = await load(fixturesDir, 'file:proto/tree.proto');
  assert.deepEqual(codes(bag), ['schema-recursive-type']);
  assert.match(bag.items[0]!.message, /type 'TreeNode' contains itself \(at children\[\]\)/);
});

test('imports resolve next to the importing file', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:proto/importer.proto');
  assert.deepEqual(codes(bag), []);
  assert.deepEqual(columns(schema), ['id STRING NOT NULL', 'amount ROW<currency STRING NOT NULL, units BIGINT NOT NULL, nanos INT NOT NULL>']);
});

test('a missing import and an unknown type are coded errors', async () => {
  const a = await load(fixturesDir, 'file:proto/missing-import.proto');
  assert.deepEqual(codes(a.bag), ['schema-file-unreadable']);
  assert.match(a.bag.items[0]!.message, /does\/not\/exist\.proto/);
  const b = await load(fixturesDir, 'file:proto/unknown-type.proto');
  assert.deepEqual(codes(b.bag), ['schema-invalid']);
  assert.match(b.bag.items[0]!.message, /Missing/);
});

test("a #Message on an Avro file is a reference error; format 'avro' with a .proto a mismatch", async () => {
  const a = await load(specsDir, 'file:schemas/orders.avsc#Order');
  assert.deepEqual(codes(a.bag), ['schema-ref-invalid']);
  const b = await load(specsDir, 'file:schemas/clicks.proto#Click', 'avro');
  assert.deepEqual(codes(b.bag), ['schema-format-mismatch']);
  assert.equal(b.bag.items[0]!.message, "format 'avro' cannot be read with the Protobuf schema 'file:schemas/clicks.proto#Click'");
});

test('a nested message is found by its name relative to the package', async () => {
  const { schema, bag } = await load(specsDir, 'file:schemas/clicks.proto#Click.Device');
  assert.deepEqual(codes(bag), []);
  assert.equal(schema!.messageName, 'shop.web.v1.Click.Device');
  assert.deepEqual(columns(schema), ['os STRING NOT NULL', 'browser STRING NOT NULL', 'screen_width INT NOT NULL', 'screen_height INT NOT NULL']);
});

test('custom options importing google/protobuf/descriptor.proto load (protobufjs ships the file)', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:proto/custom-options.proto');
  assert.deepEqual(codes(bag), []);
  assert.deepEqual(columns(schema), ['id STRING NOT NULL', 'email STRING NOT NULL']);
});
