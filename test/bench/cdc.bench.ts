// PostgreSQL CDC throughput: N rows are inserted once (in transactions of 1,000) with two
// logical slots already in place; then a bare pg-logical-replication consume loop and the
// runtime's postgres-cdc source (decoding per catalog, positions, queueing) each read all of
// them from their own slot, in the same run. Prints changes/s of both and the ratio.
// Run alone: node --import tsx test/bench/cdc.bench.ts  (CDC_BENCH_N, default 100000)
import pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import { ensureServices } from '../support/services.ts';
import { PostgresCdcSource } from '../../targets/runtime/lib/postgres-cdc/cdc-source.ts';
import { sourceConfigOf } from '../support/resolved-config.ts';
import type { SourceSink } from '../../targets/runtime/lib/io/source-types.ts';

const N = Number(process.env.CDC_BENCH_N ?? 100_000);
const env = await ensureServices(['postgres']);
const url = env.PIPEC_PG_URL!;
const tag = `${process.pid}_${Date.now().toString(36)}`;
const table = `cdc_bench_${tag}`;
const pub = `cdc_bench_pub_${tag}`;
const ROUNDS = Number(process.env.CDC_BENCH_ROUNDS ?? 3);
const slots = Array.from({ length: ROUNDS }, (_, r) => [`cdc_bench_bare_${r}_${tag}`, `cdc_bench_src_${r}_${tag}`] as const);

const c = new pg.Client({ connectionString: url });
await c.connect();
try {
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, amount numeric(12,2), ts timestamptz, customer text)`);
  await c.query(`CREATE PUBLICATION ${pub} FOR TABLE ${table}`);
  for (const s of slots.flat()) await c.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [s]);
  const t0 = performance.now();
  for (let base = 0; base < N; base += 1000) {
    await c.query(`INSERT INTO ${table} SELECT g, (g % 100000) / 100.0, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 ms', 'c' || (g % 997) FROM generate_series($1::int, $2::int) g`, [base + 1, Math.min(N, base + 1000)]);
  }
  console.log(`inserted ${N} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // ---------------------------------------------------------------- bare loop
  const bareRun = (bareSlot: string): Promise<number> => new Promise<number>((resolve, reject) => {
    const svc = new LogicalReplicationService({ connectionString: url }, { acknowledge: { auto: false, timeoutSeconds: 0 } });
    let seen = 0;
    let start = 0;
    svc.on('data', (_lsn: string, m: Pgoutput.Message) => {
      if (start === 0) start = performance.now();
      if (m.tag === 'insert') seen++;
      if (seen === N) {
        const ms = performance.now() - start;
        void svc.destroy().then(() => resolve(ms));
      }
    });
    svc.on('error', reject);
    svc.subscribe(new PgoutputPlugin({ protoVersion: 1, publicationNames: [pub] }), bareSlot).catch(() => {});
  });

  // ---------------------------------------------------------------- runtime source
  const srcRun = async (srcSlot: string): Promise<number> => {
  let rows = 0;
  let idSum = 0;
  const out: SourceSink = {
    row: (_p, r) => {
      rows++;
      idSum += r[0] as number;
    },
    dead: () => {},
    partitionAdded: () => 0,
    partitionDone: () => {},
    partitionRevoked: () => {},
    partitionReassigned: () => {},
    warn: () => {},
  };
  const cols = [
    { name: 'id', kind: 'int', nullable: false },
    { name: 'amount', kind: 'decimal', nullable: true, precision: 12, scale: 2 },
    { name: 'ts', kind: 'timestamp', nullable: true },
    { name: 'customer', kind: 'string', nullable: true },
  ];
  const src = new PostgresCdcSource(
    { id: 's', name: 'bench', connector: 'postgres-cdc', format: null, options: { dsn: url, table, slot: srcSlot, publication: pub, snapshot: 'never' }, config: sourceConfigOf('postgres-cdc', 'bench', { dsn: url, table, slot: srcSlot, publication: pub, snapshot: 'never' }), columns: cols, decode: null, timeIndex: -1, delayMs: 0, idleTimeoutMs: null },
    out,
    { env: {} },
  );
  await src.poll(0); // connect and start the stream (not timed, like the bare loop's subscribe)
  const s0 = performance.now();
  while (rows < N) {
    if ((await src.poll(10_000)) === 0) await new Promise((r) => setImmediate(r));
  }
  const srcMs = performance.now() - s0;
  await src.close();
  if (rows !== N || idSum !== (N * (N + 1)) / 2) throw new Error(`source delivered ${rows} rows (id sum ${idSum})`);
  return srcMs;
  };

  const bares: number[] = [];
  const srcs: number[] = [];
  for (const [bs, ss] of slots) {
    bares.push(await bareRun(bs));
    srcs.push(await srcRun(ss));
  }
  const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const bare = median(bares);
  const srcMs = median(srcs);
  console.log(`rounds: ${ROUNDS} (median shown); bare ms ${bares.map(Math.round).join(', ')}; source ms ${srcs.map(Math.round).join(', ')}`);
  const rate = (ms: number): number => Math.round((N * 1000) / ms);
  console.log(`bare pg-logical-replication loop: ${N} changes in ${(bare / 1000).toFixed(2)} s = ${rate(bare)} changes/s`);
  console.log(`postgres-cdc source:             ${N} changes in ${(srcMs / 1000).toFixed(2)} s = ${rate(srcMs)} changes/s`);
  console.log(`ratio source/bare: ${(rate(srcMs) / rate(bare)).toFixed(2)}`);
} finally {
  for (const s of slots.flat()) await c.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active', [s]).catch(() => {});
  await c.query(`DROP PUBLICATION IF EXISTS ${pub}`).catch(() => {});
  await c.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
  await c.end();
}
