// Test harness for the postgres-cdc source: a SourceDef without a generated decoder, a
// SourceSink that collects rows, polling until a condition holds, and per-test names.
import pg from 'pg';
import type { ColumnDef, SourceDef, SourceSink } from '../../../targets/runtime/lib/io/source-types.ts';
import type { Row } from '../../../targets/runtime/lib/ops/types.ts';
import { PostgresCdcSource } from '../../../targets/runtime/lib/postgres-cdc/cdc-source.ts';
import { sourceConfigOf } from '../../support/resolved-config.ts';

export interface Collected {
  rows: Row[];
  dead: string[];
  warnings: string[];
  partitions: string[];
}

export function collector(): { out: SourceSink; got: Collected } {
  const got: Collected = { rows: [], dead: [], warnings: [], partitions: [] };
  const out: SourceSink = {
    row: (_p, row) => void got.rows.push(row),
    dead: (_c, reason) => void got.dead.push(reason),
    partitionAdded: (id) => got.partitions.push(id) - 1,
    partitionDone: () => {},
    partitionRevoked: () => {},
    partitionReassigned: () => {},
    warn: (m) => void got.warnings.push(m),
  };
  return { out, got };
}

export function sourceDef(name: string, options: Record<string, string>, columns: ColumnDef[]): SourceDef {
  return { id: name, name, connector: 'postgres-cdc', format: null, options, config: sourceConfigOf('postgres-cdc', name, options), columns, decode: null, timeIndex: -1, delayMs: 0, idleTimeoutMs: null };
}

export const col = (name: string, kind: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({ name, kind, nullable: true, ...extra });
export const opCol = (): ColumnDef => col('op', 'string', { meta: 'op' });

export function unique(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/** Polls until `done()` holds (or throws after `ms`). */
export async function pollUntil(src: PostgresCdcSource, done: () => boolean, ms = 30_000, budget = 1000): Promise<void> {
  const t0 = Date.now();
  while (!done()) {
    if (Date.now() - t0 > ms) throw new Error(`pollUntil: condition not met within ${ms} ms`);
    const n = await src.poll(budget);
    if (n === 0) await new Promise((r) => setTimeout(r, 20));
  }
}

/** Keeps polling for `ms` (to prove nothing more arrives). */
export async function pollFor(src: PostgresCdcSource, ms: number): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if ((await src.poll(1000)) === 0) await new Promise((r) => setTimeout(r, 20));
  }
}

export async function pgClient(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  return c;
}

export async function cleanup(url: string, table: string, slot: string, pub: string): Promise<void> {
  const c = await pgClient(url);
  try {
    await c.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active', [slot]).catch(() => {});
    await c.query(`DROP PUBLICATION IF EXISTS ${pub}`);
    await c.query(`DROP TABLE IF EXISTS ${table}`);
  } finally {
    await c.end();
  }
}

export async function confirmedFlush(c: pg.Client, slot: string): Promise<bigint> {
  const r = await c.query('SELECT confirmed_flush_lsn::text AS l FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  const l = r.rows[0].l as string;
  const i = l.indexOf('/');
  return (BigInt('0x' + l.slice(0, i)) << 32n) | BigInt('0x' + l.slice(i + 1));
}
