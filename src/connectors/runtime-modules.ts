// Which runtime module (a subpath of `@pipec/runtime`, file targets/runtime/lib/modules/<module>.ts)
// realises each connector and value format. Plain data, the compiler's one source of truth for
// what the runtime target can run: the code generator imports exactly the modules a plan uses,
// and reports a connector missing here as one the runtime cannot run. (Meant to become part of
// the connector descriptors in this folder.)

export interface RuntimeModuleRef {
  /** The module's name: `@pipec/runtime/<module>`, targets/runtime/lib/modules/<module>.ts. */
  module: string;
  /** The `RuntimeModule` the file exports under this name. */
  binding: string;
}

const ref = (module: string, binding: string): RuntimeModuleRef => ({ module, binding });

export const RUNTIME_SOURCE_MODULES: Readonly<Record<string, RuntimeModuleRef>> = {
  datagen: ref('datagen', 'datagenModule'),
  file: ref('file-source', 'fileSourceModule'),
  kafka: ref('kafka', 'kafkaModule'),
  'postgres-cdc': ref('postgres-cdc', 'postgresCdcModule'),
};

export const RUNTIME_SINK_MODULES: Readonly<Record<string, RuntimeModuleRef>> = {
  clickhouse: ref('clickhouse', 'clickhouseModule'),
  file: ref('file-sink', 'fileSinkModule'),
  iceberg: ref('iceberg', 'icebergModule'),
  kafka: ref('kafka', 'kafkaModule'),
  stdout: ref('stdout', 'stdoutModule'),
};

/** Value formats that need a module; the others (json, debezium-json, csv) are built in. */
export const RUNTIME_FORMAT_MODULES: Readonly<Record<string, RuntimeModuleRef>> = {
  avro: ref('avro', 'avroModule'),
  protobuf: ref('protobuf', 'protobufModule'),
};

const own = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);
export const sourceModule = (connector: string): RuntimeModuleRef | undefined => own(RUNTIME_SOURCE_MODULES, connector);
export const sinkModule = (connector: string): RuntimeModuleRef | undefined => own(RUNTIME_SINK_MODULES, connector);
export const formatModule = (format: string): RuntimeModuleRef | undefined => own(RUNTIME_FORMAT_MODULES, format);

/** Every module name in the table, sorted. */
export const ALL_RUNTIME_MODULES: readonly RuntimeModuleRef[] = [
  ...new Map([...Object.values(RUNTIME_SOURCE_MODULES), ...Object.values(RUNTIME_SINK_MODULES), ...Object.values(RUNTIME_FORMAT_MODULES)].map((r) => [r.module, r])).values(),
].sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
