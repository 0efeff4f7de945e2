// A sink's connector section in a test: the IR sink is a union on `connector`, so a test that
// reads or edits `sink.iceberg` asserts the connector first (a wrong one fails with its name).
import assert from 'node:assert/strict';
import type { IrClickHouseSink, IrFileSink, IrIcebergSink, IrKafkaSink, IrSink } from '../../src/plan/ir.ts';

interface Sections {
  iceberg: IrIcebergSink;
  clickhouse: IrClickHouseSink;
  kafka: IrKafkaSink;
  file: IrFileSink;
}

export function section<C extends keyof Sections>(s: IrSink | undefined, connector: C): Sections[C] {
  assert.ok(s, `no sink (expected a ${connector} sink)`);
  assert.equal(s.connector, connector, `sink '${s.name}' is a ${s.connector} sink, not ${connector}`);
  return (s as unknown as Sections)[connector];
}
