// End-to-end Kafka throughput of the runtime: events/s of a real pipeline (a `.pipe.sql`
// compiled by pipec, run by `runPipeline`: Kafka source → generated decoder → TUMBLE(1 minute)
// SUM(amount)/COUNT(*) by customer → discarding sink) next to bare kafkajs consume loops over
// the same topic in the same run: one that decodes each value the same way a user's consumer
// would (JSON.parse, or avsc for Avro; the goal's baseline) and one that decodes nothing (the
// client's ceiling). Two formats: JSON, and Avro in the Confluent wire format with the writer
// schema served by a local registry-protocol server. Each topic (1M events, 4 partitions, 1,000
// customers, 100 minutes of event time) is produced once and reused by later runs after
// checking every record. Rounds alternate the order of the contenders, each with a fresh
// consumer group; medians are reported, with process CPU µs per event next to events/s
// (steadier than wall time when other jobs share the machine).
// Figures and the profile of where the time goes: docs/kafka.md.
// Run alone: node --import tsx test/bench/kafka-e2e.bench.ts  (KAFKA_E2E_N, KAFKA_E2E_ROUNDS, KAFKA_E2E_FORMATS=json,avro)
import { Kafka, logLevel } from 'kafkajs';
import { performance } from 'node:perf_hooks';
import { ensureServices } from '../support/services.ts';
import { CUSTOMERS, PARTITIONS, STEP_MS, expectedWindowRows, layout, orderJson } from './kafka-e2e/events.ts';
import { ensureTopic, type TopicSpec } from './kafka-e2e/topic.ts';
import { compileSpec, runUntilRead } from './kafka-e2e/pipeline-run.ts';
import { ORDER_SCHEMA, bareAvroDecoder, orderAvro } from './kafka-e2e/avro-orders.ts';
import { startRegistryFixture } from '../fixtures/schemas/confluent-registry-protocol-fixture.ts';

const N = Number(process.env.KAFKA_E2E_N ?? 1_000_000);
const ROUNDS = Number(process.env.KAFKA_E2E_ROUNDS ?? 3);

/** One input format: how its topic is written, how the pipeline declares it, how a bare loop decodes it. */
interface Variant {
  label: string;
  spec: TopicSpec;
  /** The source's format options in the `.pipe.sql` WITH clause. */
  formatOptions: string;
  /** Settings the compiler and the pipeline need beyond the brokers. */
  env: Record<string, string>;
  /** What the decoding bare loop does per value, for the report. */
  bareDecodeLabel: string;
  /** Decodes one value as a bare consumer would; returns a number so the work is not optimised away. */
  bareDecode: (value: Buffer) => number;
  goal: number;
}

const env = await ensureServices(['kafka']);
const runEnv = { PIPEC_KAFKA_BROKERS: env.PIPEC_KAFKA_BROKERS! };
const kafka = new Kafka({ clientId: 'bench-e2e', brokers: runEnv.PIPEC_KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
const parts = layout(N);
const expectedRows = expectedWindowRows(parts);
const runTag = `${process.pid}-${Date.now().toString(36)}`;
const groups: string[] = [];
const groupId = (tag: string): string => {
  const g = `bench-e2e-${runTag}-${tag}`;
  groups.push(g);
  return g;
};

const jsonVariant: Variant = {
  label: 'JSON',
  // The name says what the topic holds; the content check catches a generator changed without renaming.
  spec: { topic: `pipec-bench-e2e-json-${N}-v1`, parts, encode: (o) => Buffer.from(orderJson(o)) },
  formatOptions: "format = 'json'",
  env: {},
  bareDecodeLabel: 'JSON.parse',
  bareDecode: (v) => (JSON.parse(v.toString('utf8')) as { amount: number }).amount,
  goal: 0.65,
};

// The registry answers the runtime's writer-schema lookup (once per schema id, so its speed
// does not matter); ids are assigned in order, so the topic's bytes are the same every run.
const registry = await startRegistryFixture({ subjects: { 'bench-orders-value': [{ schema: JSON.stringify(ORDER_SCHEMA) }] } });
const avroId = registry.idOf('bench-orders-value', 1);
const avroVariant: Variant = {
  label: 'Avro',
  spec: { topic: `pipec-bench-e2e-avro-${N}-v1`, parts, encode: (o) => orderAvro(o, avroId) },
  formatOptions: "format = 'avro',\n  schema    = 'registry:bench-orders-value'",
  env: { PIPEC_SCHEMA_REGISTRY_URL: registry.url },
  bareDecodeLabel: 'avsc',
  bareDecode: bareAvroDecoder(avroId),
  goal: 0.8,
};

function pipeSql(v: Variant, group: string): string {
  return `-- kafka-e2e.bench.ts: revenue per customer per minute, into a discarding sink.
PIPELINE kafka_e2e_bench;

CREATE SOURCE orders (
  order_id    STRING NOT NULL,
  customer_id BIGINT NOT NULL,
  amount      DECIMAL(12, 2) NOT NULL,
  order_ts    TIMESTAMP(3) NOT NULL,
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (
  connector = 'kafka',
  topic     = '${v.spec.topic}',
  brokers   = '\${PIPEC_KAFKA_BROKERS}',
  group_id  = '${group}',
  startup   = 'earliest',
  ${v.formatOptions}
);

CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue, COUNT(*) AS orders
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end
EMIT ON WINDOW CLOSE;

CREATE SINK revenue_out FROM revenue_1m WITH (connector = 'stdout', format = 'ndjson');
`;
}

/**
 * A bare kafkajs loop from earliest with a fresh group: ms until `n` records were handled.
 * Same client settings as the Kafka source (batches of all partitions handled concurrently,
 * 1 MiB per partition per fetch): the difference measured is the runtime's, not the client's.
 */
async function bare(topic: string, n: number, group: string, decode: ((v: Buffer) => number) | null): Promise<Timing> {
  let seen = 0;
  let sink = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const consumer = kafka.consumer({ groupId: group });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          partitionsConsumedConcurrently: 64,
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) sink += decode ? decode(m.value!) : m.value!.length;
            seen += batch.messages.length;
            if (seen >= n) resolve();
          },
        })
        .catch(reject);
    });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const busy = performance.eventLoopUtilization(elu0).utilization;
    if (!Number.isFinite(sink)) throw new Error('unreachable: keeps the decoded values alive');
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000, busy };
  } finally {
    await consumer.disconnect();
  }
}

/** Wall time, process CPU time (all threads) and event-loop busy share of one timed read. */
interface Timing {
  ms: number;
  cpuMs: number;
  busy: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (ms: number): number => Math.round((N * 1000) / ms);
const fmt = (x: number): string => x.toLocaleString('en-US');
/** Throughput plus what it cost: CPU µs per event and how busy the event loop was. */
// A loop mostly idle means the client waited on the broker (another job restarting or loading
// it): the run still counts, the median absorbs it, but the line says so.
const show = (t: Timing): string =>
  `${fmt(rate(t.ms))} events/s (${((t.cpuMs * 1000) / N).toFixed(1)} CPU µs/event, loop ${Math.round(t.busy * 100)}% busy${t.busy < 0.5 ? ': waited on the broker' : ''})`;

async function measure(v: Variant): Promise<boolean> {
  console.log(`\n${v.label}: ${await ensureTopic(kafka, admin, v.spec, groupId)}`);
  const runs = { raw: [] as Timing[], decode: [] as Timing[], pipeline: [] as Timing[] };
  let ok = true;
  for (let r = 0; r < ROUNDS; r++) {
    const vEnv = { ...runEnv, ...v.env };
    const plan = await compileSpec(pipeSql(v, groupId(`${v.label}-pipeline-${r}`)), vEnv);
    const runPipelineRound = async (): Promise<void> => {
      const p = await runUntilRead(plan, N, vEnv);
      runs.pipeline.push(p);
      const good = p.recordsIn === N && p.deadLetters === 0 && p.recordsOut === expectedRows;
      ok &&= good;
      console.log(
        `  round ${r + 1}: pipeline ${show(p)} — records in ${fmt(p.recordsIn)}, dead letters ${p.deadLetters}, window rows out ${fmt(p.recordsOut)} (expected ${fmt(expectedRows)}) ${good ? 'ok' : 'WRONG'}`,
      );
    };
    const runBare = async (): Promise<void> => {
      const raw = await bare(v.spec.topic, N, groupId(`${v.label}-raw-${r}`), null);
      const dec = await bare(v.spec.topic, N, groupId(`${v.label}-decode-${r}`), v.bareDecode);
      runs.raw.push(raw);
      runs.decode.push(dec);
      console.log(`  round ${r + 1}: bare kafkajs without decoding ${show(raw)}; with ${v.bareDecodeLabel} ${show(dec)}`);
    };
    // Alternate who goes first: neither side always runs on the warmer page cache and JIT.
    if (r % 2 === 0) {
      await runBare();
      await runPipelineRound();
    } else {
      await runPipelineRound();
      await runBare();
    }
  }
  const ms = (k: keyof typeof runs): number => median(runs[k].map((t) => t.ms));
  const cpu = (k: keyof typeof runs): number => median(runs[k].map((t) => t.cpuMs));
  const ratio = ms('decode') / ms('pipeline');
  // Each round's own ratio too: the machine's load moves both sides of a round together.
  const roundRatios = runs.pipeline.map((p, i) => runs.decode[i]!.ms / p.ms);
  console.log(
    `${v.label} median of ${ROUNDS}: pipeline ${fmt(rate(ms('pipeline')))} events/s; bare kafkajs + ${v.bareDecodeLabel} ${fmt(rate(ms('decode')))} events/s; bare kafkajs without decoding ${fmt(rate(ms('raw')))} events/s\n` +
      `${v.label} ratio pipeline / bare + ${v.bareDecodeLabel}: ${ratio.toFixed(2)} (goal >= ${v.goal.toFixed(2)} ${ratio >= v.goal ? 'met' : 'NOT met'}); per round ${roundRatios.map((x) => x.toFixed(2)).join(', ')}; ` +
      `pipeline / bare without decoding: ${(ms('raw') / ms('pipeline')).toFixed(2)}\n` +
      `${v.label} CPU time per event (median): pipeline ${((cpu('pipeline') * 1000) / N).toFixed(1)} µs, bare + ${v.bareDecodeLabel} ${((cpu('decode') * 1000) / N).toFixed(1)} µs, bare without decoding ${((cpu('raw') * 1000) / N).toFixed(1)} µs ` +
      `(ratio by CPU ${(cpu('decode') / cpu('pipeline')).toFixed(2)}; steadier than wall time on a loaded machine)`,
  );
  return ok;
}

console.log(
  `events: ${fmt(N)} per topic, ${PARTITIONS} partitions, ${fmt(CUSTOMERS)} customers, event time over ${Math.round((N * STEP_MS) / 60_000)} minutes; ` +
    `pipeline: TUMBLE 1 minute SUM(DECIMAL) + COUNT(*) by customer, EMIT ON WINDOW CLOSE, discarding sink, no checkpoints; ${ROUNDS} rounds`,
);
let allOk = true;
try {
  const only = process.env.KAFKA_E2E_FORMATS?.split(',');
  for (const v of [jsonVariant, avroVariant]) if (!only || only.includes(v.label.toLowerCase())) allOk = (await measure(v)) && allOk;
} finally {
  await registry.close();
  await admin.deleteGroups(groups).catch(() => {});
  await admin.disconnect();
}
if (!allOk) {
  console.log('the pipeline did not process the topic correctly in every round');
  process.exitCode = 1;
}
