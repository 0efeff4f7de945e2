// The static table of connector descriptors (one folder each, src/connectors/<name>/), read by
// the checker, the lints, the runtime-module table and the docs generator. No registration by
// side effect; `withConnectors` lets a test add descriptors of its own for the span of a call.
import type { ConnectorDescriptor } from './descriptor.ts';
import { clickhouse } from './clickhouse/descriptor.ts';
import { datagen } from './datagen/descriptor.ts';
import { file } from './file/descriptor.ts';
import { iceberg } from './iceberg/descriptor.ts';
import { kafka } from './kafka/descriptor.ts';
import { postgresCdc } from './postgres-cdc/descriptor.ts';
import { stdout } from './stdout/descriptor.ts';

export type { ConnectorDescriptor } from './descriptor.ts';

/** In the order the docs and the checker's messages list them. */
export const CONNECTORS: readonly ConnectorDescriptor[] = [kafka, postgresCdc, file, datagen, clickhouse, iceberg, stdout];

let extra: readonly ConnectorDescriptor[] = [];

/** The built-in descriptors, then any a test added. */
export function connectors(): readonly ConnectorDescriptor[] {
  return extra.length === 0 ? CONNECTORS : [...CONNECTORS, ...extra];
}

/**
 * Runs `f` with `added` in the table (tests: a toy connector in one folder). Restored after `f`
 * settles, also when it throws.
 */
export async function withConnectors<T>(added: readonly ConnectorDescriptor[], f: () => Promise<T> | T): Promise<T> {
  const before = extra;
  extra = [...before, ...added];
  try {
    return await f();
  } finally {
    extra = before;
  }
}

export const connectorNamed = (name: string): ConnectorDescriptor | undefined => connectors().find((d) => d.name === name);

/** Connector names with a source side (or a sink side), in table order. */
export const sourceConnectorNames = (): string[] => connectors().filter((d) => d.source).map((d) => d.name);
export const sinkConnectorNames = (): string[] => connectors().filter((d) => d.sink).map((d) => d.name);
