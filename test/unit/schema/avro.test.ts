// Avro schemas → SQL columns: the spec's orders.avsc, each mapping rule on small fixtures,
// and the errors a user gets for schemas with no SQL type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { createSchemaLoader } from '../../../src/schema/index.ts';
import { codes, columns, fixturesDir, load, optionSpan, shown, specsDir } from './helpers.ts';

test('specs/schemas/orders.avsc maps to the columns the orders pipeline declares', async () => {
  const { schema, bag } = await load(specsDir, 'file:schemas/orders.avsc', 'avro');
  assert.deepEqual(bag.items, []);
  assert.deepEqual(columns(schema), [
    'order_id STRING NOT NULL',
    'customer_id BIGINT NOT NULL',
    'amount DECIMAL(12, 2) NOT NULL',
    'order_ts TIMESTAMP(3) NOT NULL',
    'status STRING NOT NULL',
    'coupon STRING',
  ]);
  assert.equal(schema!.description, 'file:schemas/orders.avsc');
  assert.equal(schema!.kind, 'avro');
  assert.equal(schema!.primaryKey, null);
  // canonicalText is the schema itself (a target embedding it must still see the decimal).
  const canon = JSON.parse(schema!.canonicalText);
  assert.equal(canon.fields[2].type.precision, 12);
});

test('every Avro type and logical type maps through the table', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:avro/all-types.avsc');
  assert.deepEqual(bag.items.map((d) => d.message), []);
  assert.deepEqual(columns(schema), [
    'b BOOLEAN NOT NULL',
    'i INT NOT NULL',
    'l BIGINT NOT NULL',
    'f FLOAT NOT NULL',
    'd DOUBLE NOT NULL',
    'raw BYTES NOT NULL',
    's STRING NOT NULL',
    'hash BYTES NOT NULL',
    'color STRING NOT NULL',
    'price DECIMAL(10, 4) NOT NULL',
    'fixed_price DECIMAL(9, 0) NOT NULL',
    'day DATE NOT NULL',
    'ts_ms TIMESTAMP(3) NOT NULL',
    'ts_us TIMESTAMP(6) NOT NULL',
    'local_ms TIMESTAMP(3) NOT NULL',
    'local_us TIMESTAMP(6) NOT NULL',
    'id STRING NOT NULL',
    'tod_ms INT NOT NULL',
    'unknown_logical BIGINT NOT NULL',
    'nums ARRAY<INT NOT NULL> NOT NULL',
    'maybe_nums ARRAY<INT> NOT NULL',
    'props MAP<STRING NOT NULL, STRING NOT NULL> NOT NULL',
    'address ROW<street STRING NOT NULL, zip STRING> NOT NULL',
    'billing ROW<street STRING NOT NULL, zip STRING>',
    'null_last DOUBLE',
  ]);
});

test('a union of several non-null types is refused, naming the field and branches', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:avro/union.avsc');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['avro-union-unsupported']);
  assert.equal(bag.items[0]!.message, `field 'payload.value' is a union of ["null", "string", "long"]; only a union of one type with "null" maps to a SQL type`);
  assert.deepEqual(bag.items[0]!.span, optionSpan);
  // The label points at the union's `[` in the schema file: line 8, column 92.
  const label = bag.items[0]!.labels[0]!.span;
  assert.deepEqual([label.file, label.start.line, label.start.column], [shown(fixturesDir, 'avro/union.avsc'), 8, 92]);
});

test('a recursive record is refused', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:avro/recursive.avsc');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['schema-recursive-type']);
  assert.match(bag.items[0]!.message, /type 'Node' contains itself \(at next\)/);
  // `"Node"` inside `["null", "Node"]` on line 6 starts at column 40.
  assert.deepEqual([bag.items[0]!.labels[0]!.span.start.line, bag.items[0]!.labels[0]!.span.start.column], [6, 40]);
});

test('an invalid decimal is ignored as the Avro spec says, with a warning', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:avro/bad-decimal.avsc');
  assert.deepEqual(columns(schema), ['amount BYTES NOT NULL', 'small BYTES NOT NULL']);
  assert.deepEqual(codes(bag), ['avro-logical-type-ignored', 'avro-logical-type-ignored']);
  assert.equal(bag.items[0]!.severity, 'warning');
  assert.match(bag.items[0]!.message, /precision must be a positive integer/);
  // fixed(2) holds at most floor(log10(2^15 - 1)) = 4 decimal digits.
  assert.match(bag.items[1]!.message, /precision 5 does not fit in fixed\(2\) \(at most 4 digits\)/);
  // The first label sits on `"decimal"` of line 5, column 67.
  assert.deepEqual([bag.items[0]!.labels[0]!.span.start.line, bag.items[0]!.labels[0]!.span.start.column], [5, 67]);
});

test('a JSON syntax error points at its line and column in the schema file', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:avro/syntax-error.avsc');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['schema-parse-error']);
  const d = bag.items[0]!;
  assert.deepEqual(d.span, optionSpan);
  // Line 5 is `    { "name": "a" "type": "int" }`: the parser stops at `"type"`, column 19.
  assert.deepEqual(d.params, { path: 'avro/syntax-error.avsc', line: 5, column: 19, detail: "Expected ',' or '}' after property value" });
  assert.equal(d.labels[0]!.span.file, shown(fixturesDir, 'avro/syntax-error.avsc'));
  assert.deepEqual([d.labels[0]!.span.start.line, d.labels[0]!.span.start.column], [5, 19]);
});

test('an undefined type name is a schema-invalid error', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:avro/undefined-name.avsc');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['schema-invalid']);
  assert.match(bag.items[0]!.message, /undefined type name: Adress/);
  // Labelled at its use, `"Adress"` on line 6, column 31.
  assert.deepEqual([bag.items[0]!.labels[0]!.span.start.line, bag.items[0]!.labels[0]!.span.start.column], [6, 31]);
});

test('a top-level type that is not a record cannot describe a source', async () => {
  const { bag } = await load(fixturesDir, 'file:avro/not-a-record.avsc');
  assert.deepEqual(codes(bag), ['schema-invalid']);
  assert.match(bag.items[0]!.message, /the top-level Avro type is array/);
});

test('a file starting with a byte-order mark still parses', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:avro/bom.avsc');
  assert.deepEqual(codes(bag), []);
  assert.deepEqual(columns(schema), ['id INT NOT NULL']);
});

test('a missing file names the path it looked at, resolved against the spec folder, relative to the cwd', async () => {
  const { schema, bag } = await load(specsDir, 'file:schemas/nope.avsc');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['schema-file-unreadable']);
  assert.equal(bag.items[0]!.message, `cannot read schema file '${shown(specsDir, 'schemas/nope.avsc')}': no such file`);
  assert.deepEqual(bag.items[0]!.span, optionSpan);
});

test('an unknown extension and an unknown scheme are reference errors', async () => {
  assert.deepEqual(codes((await load(specsDir, 'file:schemas/orders.xsd')).bag), ['schema-format-unknown']);
  assert.deepEqual(codes((await load(specsDir, 'schemas/orders.avsc')).bag), ['schema-ref-invalid']);
});

test('the cwd option decides how schema files are named in spans', async () => {
  const bag = new DiagnosticBag();
  const loader = createSchemaLoader({ baseDir: fixturesDir, cwd: fixturesDir, env: { get: () => undefined } });
  await loader.load({ ref: 'file:avro/union.avsc', format: null, span: optionSpan }, bag);
  assert.equal(bag.items[0]!.labels[0]!.span.file, 'avro/union.avsc');
});
