// Registers the `kafka` source and sink with the runtime's connector registry. An exactly-once
// Kafka sink sends the offsets of every Kafka source of the same run (same ConnectorContext)
// in its transaction.
import { registerSink, registerSource, type ConnectorContext } from '../connectors.ts';
import { KafkaSource } from './kafka-source.ts';
import { KafkaSink } from './kafka-sink.ts';

const sourcesOfRun = new WeakMap<ConnectorContext, KafkaSource[]>();

/** The pipeline name, once the runtime puts it in the context (an additive field). */
const pipelineOf = (ctx: ConnectorContext): string | undefined => (ctx as ConnectorContext & { pipeline?: string }).pipeline;

registerSource('kafka', (def, out, ctx) => {
  const src = new KafkaSource(def, out, { env: ctx.env, pipeline: pipelineOf(ctx) });
  const list = sourcesOfRun.get(ctx) ?? [];
  list.push(src);
  sourcesOfRun.set(ctx, list);
  return src;
});

registerSink(
  'kafka',
  (def, ctx) =>
    new KafkaSink(def, {
      env: ctx.env,
      pipeline: pipelineOf(ctx),
      // Lazy: the runner creates sinks before sources.
      offsets: () => (sourcesOfRun.get(ctx) ?? []).map((s) => s.transactionOffsets(s.position())),
    }),
);
