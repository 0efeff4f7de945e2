// What a connector is to the runner: factories of running sources and sinks, grouped in
// runtime modules (lib/modules/<name>.ts, one per connector or format). Nothing registers by
// side effect: a generated pipeline module imports the modules its plan uses and hands them to
// the runner (`PipelineDef.modules`), so a bundle contains only those connectors; the compiler
// knows which module realises which connector from its static table (src/connectors/).
// `registerSource`/`registerSink` remain for tests and benchmarks that plug in a connector of
// their own (or wrap a real one); they take precedence over a pipeline's modules.
import type { RunningSource, SourceDef, SourceSink } from './io/source-types.ts';
import type { RunningSink, SinkDef } from './io/sinks.ts';
import type { FormatDecoder } from './formats/types.ts';

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
   * `pipec run --workers N`: whether this worker reads partition `partition` (a file's path) of
   * source `sourceId`; absent: the run reads every partition (lib/workers/).
   */
  ownsPartition?: (sourceId: string, partition: string) => boolean;
  /**
   * This process's member id when the pipeline scales out (`scale_out = 'partitions'`: several
   * processes share one consumer group and one checkpoint store), else null. Anything a sink
   * names after the pipeline that two members must not share (Kafka transactional ids, ClickHouse
   * deduplication tokens, Iceberg snapshot-summary ownership) includes it. `checkpointDir` is
   * then already this member's own directory.
   */
  member: string | null;
  /** The binary value formats (Avro, Protobuf) the run's modules provide, by format name. */
  formats?: Record<string, FormatFactory>;
}

export type SourceFactory = (def: SourceDef, out: SourceSink, ctx: ConnectorContext) => RunningSource;
export type SinkFactory = (def: SinkDef, ctx: ConnectorContext) => RunningSink;

/** What a binary value format decoder is made from (formats/index.ts chooses the options). */
export interface FormatDecoderOptions {
  columns: SourceDef['columns'];
  schemaText: string | null;
  registryUrl: string | null;
}
export type FormatFactory = (opts: FormatDecoderOptions) => FormatDecoder;

/** One runtime module (a subpath of `@pipec/runtime`): the connectors and formats it provides. */
export interface RuntimeModule {
  /** The module's name, as in the compiler's table (`kafka`, `file-source`, `avro`, ...). */
  name: string;
  sources?: Record<string, SourceFactory>;
  sinks?: Record<string, SinkFactory>;
  formats?: Record<string, FormatFactory>;
}

type Kind = 'sources' | 'sinks' | 'formats';
function fromModules<K extends Kind>(modules: readonly RuntimeModule[] | undefined, kind: K, name: string): NonNullable<RuntimeModule[K]>[string] | undefined {
  for (const m of modules ?? []) {
    const table = m[kind] as Record<string, NonNullable<RuntimeModule[K]>[string]> | undefined;
    if (table && Object.hasOwn(table, name)) return table[name];
  }
  return undefined;
}

/** The value format decoders of a run's modules by format name. */
export function formatTable(modules: readonly RuntimeModule[] | undefined): Record<string, FormatFactory> {
  const out: Record<string, FormatFactory> = {};
  for (const m of modules ?? []) Object.assign(out, m.formats ?? {});
  return out;
}

const sources = new Map<string, SourceFactory>();
const sinks = new Map<string, SinkFactory>();

export function registerSource(connector: string, f: SourceFactory): void {
  sources.set(connector, f);
}

export function registerSink(connector: string, f: SinkFactory): void {
  sinks.set(connector, f);
}

// A registered connector (a test's stand-in) wins over a module's.
export const sourceFactory = (connector: string, modules?: readonly RuntimeModule[]): SourceFactory | undefined => sources.get(connector) ?? fromModules(modules, 'sources', connector);
export const sinkFactory = (connector: string, modules?: readonly RuntimeModule[]): SinkFactory | undefined => sinks.get(connector) ?? fromModules(modules, 'sinks', connector);
