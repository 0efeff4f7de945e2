// The runtime modules `pipec run` can load, each only when its plan uses it: a dynamic import
// per module, which the CLI bundle keeps lazy, so running a file → file spec does not start up
// kafkajs, pg, @clickhouse/client, avsc and protobufjs (~130 ms of a run's start-up, all of
// them). all-modules.ts is the same set imported at once, for tests and `pipec test`.
import type { RuntimeModule } from './lib/connectors.ts';

/** By module name (RuntimeModule.name, the file under lib/modules/), in name order. */
export const MODULE_LOADERS: Readonly<Record<string, () => Promise<RuntimeModule>>> = {
  avro: async () => (await import('./lib/modules/avro.ts')).avroModule,
  clickhouse: async () => (await import('./lib/modules/clickhouse.ts')).clickhouseModule,
  datagen: async () => (await import('./lib/modules/datagen.ts')).datagenModule,
  'file-sink': async () => (await import('./lib/modules/file-sink.ts')).fileSinkModule,
  'file-source': async () => (await import('./lib/modules/file-source.ts')).fileSourceModule,
  iceberg: async () => (await import('./lib/modules/iceberg.ts')).icebergModule,
  kafka: async () => (await import('./lib/modules/kafka.ts')).kafkaModule,
  'postgres-cdc': async () => (await import('./lib/modules/postgres-cdc.ts')).postgresCdcModule,
  protobuf: async () => (await import('./lib/modules/protobuf.ts')).protobufModule,
  stdout: async () => (await import('./lib/modules/stdout.ts')).stdoutModule,
};

/** The named modules, loaded, in name order (as all-modules.ts lists them). */
export async function loadRuntimeModules(names: readonly string[]): Promise<RuntimeModule[]> {
  for (const n of names) if (!Object.hasOwn(MODULE_LOADERS, n)) throw new Error(`runtime module '${n}' does not exist (targets/runtime/module-loaders.ts)`);
  const picked = Object.keys(MODULE_LOADERS).filter((n) => names.includes(n));
  return Promise.all(picked.map((n) => MODULE_LOADERS[n]!()));
}
