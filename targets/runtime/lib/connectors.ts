// The connector registry of the runtime: which source and sink connectors this build can run,
// and how to construct them. Built-ins (file, datagen, stdout, file sink) register here;
// other connectors (e.g. lib/kafka/) register themselves the same way, and the code generator
// asks `hasSource`/`hasSink` to report what the runtime cannot run.
import type { RunningSource, SourceDef, SourceSink } from './io/source-types.ts';
import type { RunningSink, SinkDef } from './io/sinks.ts';
import { FileSource } from './io/file-source.ts';
import { DatagenSource } from './io/datagen-source.ts';
import { FileNdjsonSink, ParquetSink, StdoutSink } from './io/sinks.ts';
import { fileSinkConfig } from './io/resolved-configs.ts';

export interface ConnectorContext {
  baseDir: string;
  env: Record<string, string | undefined>;
  /** Where stdout sinks write. */
  stdout: (text: string) => void;
  /** The pipeline's name (default group ids, transactional ids, Iceberg snapshot summaries). */
  pipeline: string;
  /**
   * Every source's current position by source name, JSON-safe: what the next checkpoint
   * records. Sinks store it with their commits (Iceberg snapshot summaries, ClickHouse
   * deduplication tokens) so a replay can recognise output it already wrote.
   */
  sourcePositions(): Record<string, unknown>;
  /** A message for the user that is not an error (stderr, prefixed with the connector's name). */
  warn(message: string): void;
  /**
   * Asks the runner for a checkpoint as soon as the current batch is done (a consumer group
   * is rebalancing: positions and state must be durable before partitions move).
   */
  requestCheckpoint(): void;
  /**
   * The run's checkpoint directory (absolute), or null when the run takes no checkpoints. A
   * sink that finishes its commit only once a checkpoint is durable keeps what it needs to
   * finish there; without checkpoints nothing resumes, so it commits in `commit()` itself.
   */
  checkpointDir: string | null;
  /**
   * This process's member id when the pipeline scales out (`scale_out = 'partitions'`: several
   * processes share one consumer group and one checkpoint store), else null. Anything a sink
   * names after the pipeline that two members must not share (Kafka transactional ids, ClickHouse
   * deduplication tokens, Iceberg snapshot-summary ownership) includes it. `checkpointDir` is
   * then already this member's own directory.
   */
  member: string | null;
}

export type SourceFactory = (def: SourceDef, out: SourceSink, ctx: ConnectorContext) => RunningSource;
export type SinkFactory = (def: SinkDef, ctx: ConnectorContext) => RunningSink;

const sources = new Map<string, SourceFactory>();
const sinks = new Map<string, SinkFactory>();

export function registerSource(connector: string, f: SourceFactory): void {
  sources.set(connector, f);
}

export function registerSink(connector: string, f: SinkFactory): void {
  sinks.set(connector, f);
}

export const sourceFactory = (connector: string): SourceFactory | undefined => sources.get(connector);
export const sinkFactory = (connector: string): SinkFactory | undefined => sinks.get(connector);
export const hasSource = (connector: string): boolean => sources.has(connector);
export const hasSink = (connector: string): boolean => sinks.has(connector);

registerSource('file', (def, out, ctx) => new FileSource(def, ctx.baseDir, out));
registerSource('datagen', (def, out) => new DatagenSource(def, out));
registerSink('stdout', (def, ctx) => new StdoutSink(def, ctx.stdout));
registerSink('file', (def, ctx) => (fileSinkConfig(def).format === 'parquet' ? new ParquetSink(def, ctx.baseDir) : new FileNdjsonSink(def, ctx.baseDir)));
