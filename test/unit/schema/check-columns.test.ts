// Declared columns vs a loaded schema: projection, missing fields with suggestions, type and
// nullability mismatches, each reported on the right span; METADATA columns skipped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { Span } from '../../../src/diagnostics/span.ts';
import { checkDeclaredColumns } from '../../../src/schema/index.ts';
import type { LoadedSchema } from '../../../src/schema/schema-loader.ts';
import type { ColumnDef } from '../../../src/syntax/ast.ts';
import { T, type SqlType } from '../../../src/types/sql-type.ts';

const at = (line: number, col: number, len: number): Span => ({
  file: 'orders.pipe.sql',
  start: { offset: line * 100 + col, line, column: col },
  end: { offset: line * 100 + col + len, line, column: col + len },
});

/** A column on its own line: name at column 3, type at column 16. */
function col(line: number, name: string, type: SqlType, opts: { quoted?: boolean; metadata?: string } = {}): ColumnDef {
  return {
    name: { name, quoted: opts.quoted ?? false, span: at(line, 3, name.length) },
    type,
    typeSpan: at(line, 16, 10),
    metadataFrom: opts.metadata ? { key: opts.metadata, span: at(line, 30, 10) } : null,
    span: at(line, 3, 30),
  };
}

const orders: LoadedSchema = {
  fields: [
    { name: 'order_id', type: T.string(false) },
    { name: 'customerId', type: T.bigint(false) },
    { name: 'amount', type: T.decimal(12, 2, false) },
    { name: 'order_ts', type: T.timestamp(3, false) },
    { name: 'coupon', type: T.string(true) },
    { name: 'tags', type: T.array(T.string(true), false) },
  ],
  primaryKey: null,
  canonicalText: '{}',
  description: 'file:schemas/orders.avsc',
};

test('a matching projection reports nothing and keeps declared order, names and types', () => {
  const bag = new DiagnosticBag();
  const out = checkDeclaredColumns(
    [col(2, 'amount', T.decimal(12, 2, false)), col(3, 'order_id', T.string(false)), col(4, 'coupon', T.string(true)), col(5, 'customerid', T.bigint(true))],
    orders,
    bag,
  );
  assert.deepEqual(bag.items, []);
  // Unquoted `customerid` matches the schema's `customerId`; a nullable declaration of a NOT NULL field is fine.
  assert.deepEqual(out, [
    { name: 'amount', type: T.decimal(12, 2, false) },
    { name: 'order_id', type: T.string(false) },
    { name: 'coupon', type: T.string(true) },
    { name: 'customerid', type: T.bigint(true) },
  ]);
});

test('a missing field is reported on the column with a suggestion', () => {
  const bag = new DiagnosticBag();
  checkDeclaredColumns([col(2, 'ammount', T.decimal(12, 2))], orders, bag);
  assert.equal(bag.items.length, 1);
  const d = bag.items[0]!;
  assert.equal(d.code, 'schema-column-missing');
  assert.equal(d.message, "column 'ammount' is not a field of file:schemas/orders.avsc (did you mean 'amount'?)");
  assert.deepEqual(d.span, at(2, 3, 30));
});

test('a quoted name must match exactly', () => {
  const bag = new DiagnosticBag();
  checkDeclaredColumns([col(2, 'customerid', T.bigint(), { quoted: true })], orders, bag);
  assert.deepEqual(bag.items.map((d) => d.code), ['schema-column-missing']);
  assert.equal(bag.items[0]!.params.suggestion, 'customerId');
});

test('a type mismatch is reported on the type span, both types printed as written in SQL', () => {
  const bag = new DiagnosticBag();
  checkDeclaredColumns([col(2, 'amount', T.decimal(10, 2, false)), col(3, 'order_ts', T.timestampLtz(3, false))], orders, bag);
  assert.deepEqual(
    bag.items.map((d) => [d.code, d.message, d.span.start.column]),
    [
      ['schema-column-type-mismatch', "column 'amount' is declared DECIMAL(10, 2) but file:schemas/orders.avsc has DECIMAL(12, 2)", 16],
      ['schema-column-type-mismatch', "column 'order_ts' is declared TIMESTAMP_LTZ(3) but file:schemas/orders.avsc has TIMESTAMP(3)", 16],
    ],
  );
  assert.equal(bag.items[0]!.help, 'declare it as DECIMAL(12, 2), or CAST it in a view');
});

test('NOT NULL over a nullable field is an error, also inside an ARRAY', () => {
  const bag = new DiagnosticBag();
  checkDeclaredColumns([col(2, 'coupon', T.string(false)), col(3, 'tags', T.array(T.string(false), false))], orders, bag);
  assert.deepEqual(
    bag.items.map((d) => [d.code, d.message]),
    [
      ['schema-column-nullability', "column 'coupon' is declared NOT NULL but may be null in file:schemas/orders.avsc"],
      ['schema-column-nullability', "column 'tags' is declared NOT NULL but may be null in file:schemas/orders.avsc"],
    ],
  );
  assert.deepEqual(bag.items[0]!.span, at(2, 3, 30));
});

test('METADATA columns are skipped and not returned', () => {
  const bag = new DiagnosticBag();
  const out = checkDeclaredColumns([col(2, 'order_id', T.string(false)), col(3, 'kafka_offset', T.bigint(), { metadata: 'offset' })], orders, bag);
  assert.deepEqual(bag.items, []);
  assert.deepEqual(out.map((f) => f.name), ['order_id']);
});

test('ROW field names compare case-insensitively; a different field list is a mismatch', () => {
  const schema: LoadedSchema = { ...orders, fields: [{ name: 'device', type: T.row([{ name: 'OS', type: T.string(false) }], true) }] };
  const bag = new DiagnosticBag();
  checkDeclaredColumns([col(2, 'device', T.row([{ name: 'os', type: T.string(false) }]))], schema, bag);
  assert.equal(bag.items.length, 0);
  checkDeclaredColumns([col(3, 'device', T.row([{ name: 'os', type: T.string() }, { name: 'browser', type: T.string() }]))], schema, bag);
  assert.deepEqual(bag.items.map((d) => d.code), ['schema-column-type-mismatch']);
});
