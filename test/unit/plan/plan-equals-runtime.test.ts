// Plan equals runtime: for every spec in specs/ and every valid golden case, the resolved
// connector configuration of the physical plan (`pipec plan --physical`) is what the runtime's
// connector factories receive at start, field by field. The factories are constructed only
// (constructors record their options; nothing connects before open()).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { compileFile } from '../../../src/build/compile.ts';
import { lowerPlan } from '../../../src/plan/physical/lower.ts';
import type { SinkConfig, SourceConfig } from '../../../targets/runtime/lib/config/config-types.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { ALL_MODULES } from '../../../targets/runtime/all-modules.ts';
import { formatTable, sinkFactory, sourceFactory, type ConnectorContext } from '../../../targets/runtime/lib/connectors.ts';
import { subst } from '../../../targets/runtime/lib/index.ts';
import { caseInput, listCases } from '../../golden/golden-harness.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Every variable the specs and goldens read, with values unlike any default. */
const ENV: Record<string, string> = {
  PIPEC_KAFKA_BROKERS: '10.0.0.1:9092,10.0.0.2:9092',
  PIPEC_SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
  PIPEC_CLICKHOUSE_URL: 'http://ch.example:8123',
  PIPEC_CLICKHOUSE_USER: 'writer',
  PIPEC_CLICKHOUSE_PASSWORD: 'pw-from-env',
  PIPEC_CATALOG_URI: 'sqlite:///tmp/pipec-golden/catalog.db',
  PIPEC_WAREHOUSE: 'file:///tmp/pipec-golden/warehouse',
  PIPEC_SHOP_DSN: 'postgres://pipec@127.0.0.1:5432/shop',
  PIPEC_PG_URL: 'postgres://pipec@127.0.0.1:5432/pg',
};

const inputs = [
  ...readdirSync(join(ROOT, 'specs'))
    .filter((f) => /\.pipe\.(sql|yaml)$/.test(f))
    .sort()
    .map((f) => `specs/${f}`),
  ...listCases()
    .filter((c) => c.startsWith('valid-') || c.startsWith('lint-'))
    .map(caseInput),
];

/** The plan's config with its `${VAR}` fields substituted as the generated module does at start. */
function substituted<C extends SourceConfig | SinkConfig>(c: C): C {
  const o: Record<string, unknown> = { ...c };
  for (const k of c.templated) if (typeof o[k] === 'string') o[k] = subst(o[k] as string, ENV);
  return o as C;
}

/** Nothing is opened; paths resolve against a directory no test writes. */
const BASE = join(tmpdir(), 'pipec-plan-equals-runtime');

const ctx: ConnectorContext = {
  baseDir: BASE,
  env: ENV,
  stdout: () => {},
  pipeline: '',
  sourcePositions: () => ({}),
  warn: () => {},
  requestCheckpoint: () => {},
  checkpointDir: null,
  member: null,
  formats: formatTable(ALL_MODULES),
};

/** A SourceSink that records nothing: constructors only announce partitions. */
const out = new Proxy({}, { get: () => () => ({ index: 0 }) }) as never;

const brokers = (b: string | null): string[] => (b ?? ENV.PIPEC_KAFKA_BROKERS!).split(',').map((s) => s.trim());

/**
 * The plan's resolved config in the runtime's terms (field names and units of what the constructed
 * connector holds), and the runtime's fields read from it; null: nothing constructed
 * (connectors registered by tests).
 */
function expectedAndHeld(c: SourceConfig | SinkConfig, running: any): [Record<string, unknown>, Record<string, unknown>] | null {
  switch (c.connector) {
    // The connectors hold the plan's config as received (`config`, compared whole), plus what only
    // the start knows: the environment's brokers / URL / DSN, the member's transactional id.
    case 'kafka':
      return [
        'groupId' in c
          ? { config: c, brokers: brokers(c.brokers) }
          : { config: c, brokers: brokers(c.brokers), transactionalId: c.transactionalId, commitGroup: `${c.transactionalId}-commits` },
        running,
      ];
    case 'clickhouse':
      return [
        {
          config: c,
          conn: {
            url: c.url ?? ENV.PIPEC_CLICKHOUSE_URL,
            username: c.user ?? ENV.PIPEC_CLICKHOUSE_USER,
            password: c.password ?? ENV.PIPEC_CLICKHOUSE_PASSWORD,
            database: c.database,
            table: c.table,
          },
        },
        running,
      ];
    case 'postgres-cdc': {
      const [schema, relname] = c.table.includes('.') ? c.table.toLowerCase().split('.') : ['public', c.table.toLowerCase()];
      return [{ config: c, conn: { dsn: c.dsn ?? ENV.PIPEC_PG_URL, table: c.table, schema, relname, slot: c.slot.toLowerCase(), publication: c.publication.toLowerCase() } }, running];
    }
    case 'file':
      return 'follow' in c
        ? [{ path: c.path, format: c.format, follow: c.follow, allowEmpty: c.allowEmpty, bounded: !c.follow }, { ...running.config, bounded: running.bounded }]
        : [{ path: resolve(BASE, c.path), parquet: c.format === 'parquet' }, { path: running.dir ?? running.f.file, parquet: running.dir !== undefined }];
    case 'datagen':
      return [{ total: c.totalRows ?? Number.POSITIVE_INFINITY, rps: c.rowsPerSecond, partitions: c.partitions }, { total: running.total, rps: running.rps, partitions: running.parts.length }];
    case 'stdout':
      return [{ table: c.format === 'table' }, { table: running.table }];
    case 'iceberg':
      return [
        { catalog: c.catalog, table: c.table, formatVersion: c.formatVersion, targetFileSizeBytes: c.targetFileSizeBytes, commitIntervalMs: c.commitIntervalMs, writeMode: c.writeMode, compressionCodec: c.compressionCodec, partitionBy: c.partitionBy, sortBy: c.sortBy,
          properties: [c.compressionCodec, String(c.targetFileSizeBytes), c.writeMode, String(c.commitIntervalMs)] },
        icebergHeld(running.spec),
      ];
    default:
      return null;
  }
}

/**
 * What the running Iceberg sink holds (`IcebergSinkSpec`) in the plan's terms: the partition
 * spec and sort order read back from the table metadata it would create the table with (field
 * ids mapped to column names through its schema), the properties it would write with.
 */
function icebergHeld(spec: any): Record<string, unknown> {
  const meta = spec.metadata;
  const schema = meta.schemas.find((s: any) => s['schema-id'] === meta['current-schema-id']);
  const column = (id: number): string => schema.fields.find((f: any) => f.id === id)?.name ?? `#${id}`;
  const partitionSpec = meta['partition-specs'].find((p: any) => p['spec-id'] === meta['default-spec-id']);
  const sortOrder = meta['sort-orders'].find((o: any) => o['order-id'] === meta['default-sort-order-id']);
  return {
    catalog: spec.catalog?.name,
    table: spec.table,
    formatVersion: spec.formatVersion,
    targetFileSizeBytes: spec.targetFileSizeBytes,
    commitIntervalMs: spec.commitIntervalMs,
    writeMode: spec.writeMode,
    compressionCodec: spec.compression,
    partitionBy: partitionSpec.fields.map((f: any) => (f.transform === 'identity' ? column(f['source-id']) : `${f.transform}(${column(f['source-id'])})`)),
    sortBy: (sortOrder?.fields ?? []).map((f: any) => `${column(f['source-id'])} ${f.direction} ${f['null-order'].replace('-', ' ')}`),
    // The table properties agree with the settings they restate.
    properties: [meta.properties['write.parquet.compression-codec'], meta.properties['write.target-file-size-bytes'], meta.properties['write.merge.mode'], meta.properties['pipec.commit-interval-ms']],
  };
}

function compareFields(where: string, expected: Record<string, unknown>, actual: Record<string, unknown>): void {
  for (const k of Object.keys(expected)) assert.deepEqual(actual[k], expected[k], `${where}: field '${k}'`);
}

test('every spec and valid golden: the runtime connectors receive the physical plan\'s resolved configs', async () => {
  let checked = 0;
  let icebergChecked = 0;
  for (const file of inputs) {
    const r = await compileFile(file, { cwd: ROOT, env: { get: (n) => ENV[n] } });
    if (!r.plan || r.diagnostics.hasErrors) {
      assert.ok(!file.startsWith('specs/'), `${file} does not compile`);
      continue;
    }
    const phys = lowerPlan(r.plan);
    // `pipec plan` (the logical plan's Kafka section) and the physical plan say the same.
    for (const s of r.plan.sinks) {
      const c = phys.sinks.find((p) => p.id === s.id)!.config;
      if (s.connector === 'kafka' && c.connector === 'kafka') assert.equal(s.kafka.delivery, c.delivery, `${file}: sink ${s.name}: pipec plan's delivery`);
    }
    const def = instantiateBody(generateBody(r.plan).body, ENV);
    for (const s of def.sources) {
      const planned = substituted(phys.sources.find((p) => p.id === s.id)!.config);
      compareFields(`${file}: source ${s.name} config`, planned as never, s.config as never);
      const running = sourceFactory(s.connector, ALL_MODULES)!(s, out, { ...ctx, pipeline: def.name });
      const pair = expectedAndHeld(planned, running);
      assert.ok(pair, `${file}: source ${s.name}: connector ${s.connector} not compared`);
      compareFields(`${file}: source ${s.name} as the runtime holds it`, pair[0], pair[1]);
      checked++;
    }
    for (const s of def.sinks) {
      const planned = substituted(phys.sinks.find((p) => p.id === s.id)!.config);
      compareFields(`${file}: sink ${s.name} config`, planned as never, s.config as never);
      const running = sinkFactory(s.connector, ALL_MODULES)!(s, { ...ctx, pipeline: def.name });
      const pair = expectedAndHeld(planned, running);
      assert.ok(pair, `${file}: sink ${s.name}: connector ${s.connector} not compared`);
      compareFields(`${file}: sink ${s.name} as the runtime holds it`, pair[0], pair[1]);
      checked++;
      if (s.connector === 'iceberg') icebergChecked++;
    }
  }
  // Every endpoint of the specs and goldens: a test that checks nothing fails.
  assert.ok(checked >= 40, `only ${checked} connector endpoints checked`);
  assert.ok(icebergChecked >= 3, `only ${icebergChecked} Iceberg sinks checked`);
});

test('orders_revenue: the late-rows Kafka sink runs at-least-once, as pipec plan says', async () => {
  const r = await compileFile('specs/orders_revenue.pipe.sql', { cwd: ROOT, env: { get: (n) => ENV[n] } });
  const def = instantiateBody(generateBody(r.plan!).body, ENV);
  const late = def.sinks.find((s) => s.name === 'orders_late')!;
  const running = sinkFactory('kafka', ALL_MODULES)!(late, { ...ctx, pipeline: def.name }) as unknown as { config: { delivery: string } };
  const shown = lowerPlan(r.plan!).sinks.find((s) => s.name === 'orders_late')!.config;
  assert.equal(shown.connector === 'kafka' && shown.delivery, 'at-least-once');
  assert.equal(running.config.delivery, 'at-least-once');
});
