// Which runtime module (a subpath of `@pipec/runtime`, file targets/runtime/lib/modules/<module>.ts)
// realises each connector and value format: the connectors' part from their descriptors
// (`targets.runtime`), the formats' here. The code generator imports exactly the modules a plan
// uses, and reports a connector missing here as one the runtime cannot run.
import { connectors } from './index.ts';
import type { RuntimeModuleRef } from './descriptor.ts';

export type { RuntimeModuleRef } from './descriptor.ts';

const ref = (module: string, binding: string): RuntimeModuleRef => ({ module, binding });

function table(side: 'source' | 'sink'): Record<string, RuntimeModuleRef> {
  const out: Record<string, RuntimeModuleRef> = {};
  for (const d of connectors()) {
    const r = d.targets.runtime?.[side];
    if (r) out[d.name] = r;
  }
  return out;
}

/** By connector name, from the built-in descriptors (a snapshot: tests that add descriptors use sourceModule/sinkModule). */
export const RUNTIME_SOURCE_MODULES: Readonly<Record<string, RuntimeModuleRef>> = table('source');
export const RUNTIME_SINK_MODULES: Readonly<Record<string, RuntimeModuleRef>> = table('sink');

/** Value formats that need a module; the others (json, debezium-json, csv) are built in. */
export const RUNTIME_FORMAT_MODULES: Readonly<Record<string, RuntimeModuleRef>> = {
  avro: ref('avro', 'avroModule'),
  protobuf: ref('protobuf', 'protobufModule'),
};

const own = <T>(t: Readonly<Record<string, T>>, key: string): T | undefined => (Object.hasOwn(t, key) ? t[key] : undefined);
export const sourceModule = (connector: string): RuntimeModuleRef | undefined => own(table('source'), connector);
export const sinkModule = (connector: string): RuntimeModuleRef | undefined => own(table('sink'), connector);
export const formatModule = (format: string): RuntimeModuleRef | undefined => own(RUNTIME_FORMAT_MODULES, format);

/** Every module name in the table, sorted. */
export const ALL_RUNTIME_MODULES: readonly RuntimeModuleRef[] = [
  ...new Map([...Object.values(RUNTIME_SOURCE_MODULES), ...Object.values(RUNTIME_SINK_MODULES), ...Object.values(RUNTIME_FORMAT_MODULES)].map((r) => [r.module, r])).values(),
].sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
