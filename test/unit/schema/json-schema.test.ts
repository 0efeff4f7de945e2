// JSON Schema → SQL columns: the spec's sensor.schema.json, every mapping rule on a fixture,
// meta-schema validation through ajv with the position of the offending value, and errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codes, columns, fixturesDir, load, optionSpan, specsDir } from './helpers.ts';

test('specs/schemas/sensor.schema.json maps required, nullable, date-time and arrays', async () => {
  const { schema, bag } = await load(specsDir, 'file:schemas/sensor.schema.json', 'json');
  assert.deepEqual(bag.items, []);
  assert.deepEqual(columns(schema), [
    'device_id STRING NOT NULL',
    'site STRING NOT NULL',
    'temperature DOUBLE NOT NULL',
    'humidity DOUBLE',
    'reading_ts TIMESTAMP_LTZ(3) NOT NULL',
    'tags ARRAY<STRING NOT NULL>',
  ]);
  assert.equal(schema!.kind, 'json-schema');
});

test('every JSON Schema rule maps through the tables', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:json/all-types.json');
  assert.deepEqual(bag.items.map((d) => d.message), []);
  assert.deepEqual(columns(schema), [
    'id BIGINT NOT NULL',
    'name STRING NOT NULL',
    'score DOUBLE',
    'active BOOLEAN',
    'created TIMESTAMP_LTZ(3) NOT NULL',
    'birthday DATE',
    'token STRING',
    // required, but its type allows null
    'nickname STRING',
    'middle_name STRING',
    'level STRING',
    'counts ARRAY<BIGINT NOT NULL> NOT NULL',
    'labels MAP<STRING NOT NULL, STRING NOT NULL> NOT NULL',
    'origin ROW<x DOUBLE NOT NULL, y DOUBLE NOT NULL> NOT NULL',
    // a free-form object is kept as its JSON text
    'payload STRING',
    'address ROW<city STRING NOT NULL, zip STRING> NOT NULL',
  ]);
});

test('a schema that breaks the meta-schema is reported with the position of the bad value', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:json/bad-meta.json');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['schema-invalid']);
  const d = bag.items[0]!;
  assert.equal(d.message, "'json/bad-meta.json' is not a valid schema: at /properties/temperature/type: must be equal to one of the allowed values");
  assert.deepEqual(d.span, optionSpan);
  // `"decimal"` on line 5: `    "temperature": { "type": "decimal" }` starts at column 30 (4 spaces, 13-char key, `: { "type": `).
  assert.deepEqual([d.labels[0]!.span.start.line, d.labels[0]!.span.start.column, d.labels[0]!.span.end.column], [5, 30, 39]);
});

test('several non-null types, and oneOf of two types, have no SQL type', async () => {
  const { schema, bag } = await load(fixturesDir, 'file:json/multi-type.json');
  assert.equal(schema, null);
  assert.deepEqual(codes(bag), ['json-schema-unsupported', 'json-schema-unsupported']);
  assert.equal(bag.items[0]!.message, "'json/multi-type.json#value': several types [string, number]");
  assert.equal(bag.items[1]!.message, "'json/multi-type.json#loose': oneOf with 2 non-null alternatives");
  // Labels in the schema file: the `[` of the type list (5:24) and of the oneOf list (6:25).
  const where = bag.items.map((d) => [d.labels[0]!.span.start.line, d.labels[0]!.span.start.column]);
  assert.deepEqual(where, [
    [5, 24],
    [6, 25],
  ]);
});

test('the top level must be an object with properties', async () => {
  const { bag } = await load(fixturesDir, 'file:json/not-object.json');
  assert.deepEqual(codes(bag), ['json-schema-unsupported']);
});

test('a recursive $ref is refused', async () => {
  const { bag } = await load(fixturesDir, 'file:json/recursive.json');
  assert.deepEqual(codes(bag), ['schema-recursive-type']);
  assert.match(bag.items[0]!.message, /type '#\/\$defs\/node' contains itself \(at head\.next\)/);
  // The label is on the inner `"$ref": "#/$defs/node"` value: line 6, column 73.
  assert.deepEqual([bag.items[0]!.labels[0]!.span.start.line, bag.items[0]!.labels[0]!.span.start.column], [6, 73]);
});

test('a truncated file is a parse error at its end', async () => {
  const { bag } = await load(fixturesDir, 'file:json/truncated.json');
  assert.deepEqual(codes(bag), ['schema-parse-error']);
  // The text ends after line 4's newline: V8 reports the end, line 5 column 1.
  assert.deepEqual([bag.items[0]!.params.line, bag.items[0]!.params.column], [5, 1]);
});

test("format 'avro' with a JSON Schema is a mismatch; 'ndjson' and 'debezium-json' fit", async () => {
  assert.deepEqual(codes((await load(specsDir, 'file:schemas/sensor.schema.json', 'avro')).bag), ['schema-format-mismatch']);
  assert.deepEqual(codes((await load(specsDir, 'file:schemas/sensor.schema.json', 'ndjson')).bag), []);
  assert.deepEqual(codes((await load(specsDir, 'file:schemas/sensor.schema.json', 'debezium-json')).bag), []);
});
