// The runtime's built-in connectors read only the resolved config the generated module passes
// (`def.config`): a def without it is refused with a message naming it, never re-read from its
// options with defaults of the connector's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { ALL_MODULES } from '../../../targets/runtime/all-modules.ts';
import { formatTable, sinkFactory, sourceFactory, type ConnectorContext } from '../../../targets/runtime/lib/connectors.ts';
import type { SourceDef } from '../../../targets/runtime/lib/io/source-types.ts';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';

const ctx: ConnectorContext = { baseDir: tmpdir(), env: { PIPEC_KAFKA_BROKERS: 'h:1', PIPEC_CLICKHOUSE_URL: 'http://h:1', PIPEC_PG_URL: 'postgres://h/db' }, stdout: () => {}, pipeline: 'p', sourcePositions: () => ({}), warn: () => {}, requestCheckpoint: () => {}, checkpointDir: null, member: null, formats: formatTable(ALL_MODULES) };
const out = new Proxy({}, { get: () => () => 0 }) as never;

const source = (connector: string, options: Record<string, string>): SourceDef => ({ id: 's', name: 's', connector, format: 'json', options, columns: [], decode: null, timeIndex: -1, delayMs: 0, idleTimeoutMs: null });
const sink = (connector: string, options: Record<string, string>): SinkDef => ({ id: 'k', name: 'k', connector, options, columns: [], json: () => '', cells: () => [] });

test('every built-in source and sink refuses a def without its resolved config', () => {
  const sources: [string, Record<string, string>][] = [['kafka', { topic: 't' }], ['postgres-cdc', { table: 't' }], ['file', { path: 'x.ndjson' }], ['datagen', { total_rows: '1' }]];
  for (const [connector, options] of sources) {
    assert.throws(() => sourceFactory(connector, ALL_MODULES)!(source(connector, options), out, ctx), new RegExp(`^Error: source 's': no resolved ${connector} configuration`), connector);
  }
  const sinks: [string, Record<string, string>][] = [['kafka', { topic: 't' }], ['clickhouse', { table: 'd.t' }], ['file', { path: 'x.ndjson' }], ['stdout', {}]];
  for (const [connector, options] of sinks) {
    assert.throws(() => sinkFactory(connector, ALL_MODULES)!(sink(connector, options), ctx), new RegExp(`^Error: sink 'k': no resolved ${connector} configuration`), connector);
  }
});
