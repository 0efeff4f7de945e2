// `@pipec/runtime/kafka`: the `kafka` source and sink (kafkajs). An exactly-once
// Kafka sink sends the offsets of every Kafka source of the same run (same ConnectorContext)
// in its transaction. Rebalances reach the runner: a checkpoint before partitions move (so
// positions and state are durable and offsets committed), and revoked partitions stop holding
// the watermark back.
import type { ConnectorContext, RuntimeModule, SinkFactory, SourceFactory } from '../connectors.ts';
import { KafkaSource } from '../kafka/kafka-source.ts';
import { KafkaSink } from '../kafka/kafka-sink.ts';

const sourcesOfRun = new WeakMap<ConnectorContext, KafkaSource[]>();

const source: SourceFactory = (def, out, ctx) => {
  let warnedShared = false;
  const src = new KafkaSource(def, out, {
    env: ctx.env,
    formats: ctx.formats,
    // Scaled out, a won partition waits for the state another member releases.
    deferNewPartitions: ctx.member !== null,
    ...(ctx.member !== null ? { clientId: `pipec-${def.name}-${ctx.member}` } : {}),
    hooks: {
      onRebalancing: () => ctx.requestCheckpoint(),
      onRevoked: (parts) => {
        for (const p of parts) out.partitionRevoked(p.index);
        // Another process joined the group. Not scaled out, this member keeps the state of the
        // partitions it lost, and the new holder starts them empty: say so once.
        if (ctx.member === null && !warnedShared) {
          warnedShared = true;
          ctx.warn(
            `source '${def.name}': partition(s) ${parts.map((p) => p.id).join(', ')} moved to another member of the consumer group; this pipeline does not scale out (scale_out = 'partitions'), so windows and groups open on them are finished in parts by both members — run one process per group, or scale out (docs/scale-out.md)`,
          );
        }
      },
      onAssigned: (parts) => {
        for (const p of parts) out.partitionReassigned(p.index);
      },
    },
  });
  const list = sourcesOfRun.get(ctx) ?? [];
  list.push(src);
  sourcesOfRun.set(ctx, list);
  return src;
};

const sink: SinkFactory = (def, ctx) =>
    new KafkaSink(def, {
      env: ctx.env,
      member: ctx.member,
      checkpointDir: ctx.checkpointDir,
      warn: ctx.warn,
      // Lazy: the runner creates sinks before sources.
      offsets: () => (sourcesOfRun.get(ctx) ?? []).map((s) => s.transactionOffsets(s.position())),
    });

export const kafkaModule: RuntimeModule = { name: 'kafka', sources: { kafka: source }, sinks: { kafka: sink } };
