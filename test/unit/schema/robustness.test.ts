// Hostile and odd schema documents never throw: each load ends in a schema or in coded
// diagnostics whose codes the registry knows (a user never sees a stack trace).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { lookupCode } from '../../../src/diagnostics/registry.ts';
import { load } from './helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pipec-schema-robust-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const cases: Record<string, string> = {
  'null.avsc': 'null',
  'number.avsc': '42',
  'empty.avsc': '',
  'array.avsc': '[]',
  'no-name.avsc': '{"type": "record"}',
  'fields-string.avsc': '{"type": "record", "name": "A", "fields": "x"}',
  'decimal-string-precision.avsc': '{"type": "record", "name": "A", "fields": [{"name": "a", "type": {"type": "bytes", "logicalType": "decimal", "precision": "12"}}]}',
  'logical-on-record.avsc': '{"type": "record", "name": "A", "logicalType": "date", "fields": [{"name": "a", "type": "int"}]}',
  'null-field.avsc': '{"type": "record", "name": "A", "fields": [{"name": "a", "type": "null"}]}',
  'empty-union.avsc': '{"type": "record", "name": "A", "fields": [{"name": "a", "type": []}]}',
  'array.json': '[]',
  'props-array.json': '{"type": "object", "properties": []}',
  'bad-ref.json': '{"type": "object", "properties": {"a": {"$ref": "#/nope"}}}',
  'ref-number.json': '{"type": "object", "properties": {"a": {"$ref": 5}}}',
  'true-prop.json': '{"type": "object", "properties": {"a": true}}',
  'items-tuple.json': '{"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}',
  'ref-chain.json': '{"type": "object", "$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}}, "properties": {"a": {"$ref": "#/$defs/x"}}}',
  'remote-ref.json': '{"type": "object", "properties": {"a": {"$ref": "https://example.com/x.json"}}}',
  'empty.proto': '',
  'open.proto': 'message A {',
  'binary.proto': '\u0000\u0001\u0002\u00ff garbage',
  'enum-only.proto': 'syntax = "proto3"; enum E { E_ZERO = 0; }',
  'dup-field.proto': 'syntax = "proto3"; message A { string a = 1; string a = 2; }',
};
for (const [name, text] of Object.entries(cases)) writeFileSync(path.join(dir, name), text);

for (const name of Object.keys(cases)) {
  test(`${name}: no exception, only known codes`, async () => {
    const { schema, bag } = await load(dir, `file:${name}`);
    for (const d of bag.items) assert.ok(lookupCode(d.code), `unknown code ${d.code}`);
    // Either a schema, or at least one error saying why not.
    assert.ok(schema !== null || bag.hasErrors, `${name}: null without an error`);
  });
}

test('a logicalType on the top-level record is ignored, as the Avro spec says', async () => {
  const { schema, bag } = await load(dir, 'file:logical-on-record.avsc');
  assert.deepEqual(bag.items, []);
  assert.equal(schema!.fields.length, 1);
});
