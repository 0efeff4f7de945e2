// The shape of a connector descriptor: everything the compiler knows about one connector, in
// its folder (src/connectors/<name>/descriptor.ts) — the option schema of each side (types,
// required, defaults, secrets, one-line docs), the resolver of its typed config, the lints that
// belong to it and how each target realises it. The checker, the lints, the runtime-module
// table and docs/connectors.md read these; nothing else lists a connector's options.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { Code } from '../diagnostics/registry.ts';
import type { PlanDoc, IrSink, IrSource } from '../plan/ir.ts';
import type { PlanIndex } from '../plan/plan-index.ts';
import type { RawOption } from '../../targets/runtime/lib/config/option-reader.ts';

export type OptType =
  | { kind: 'string' }
  | { kind: 'duration'; allowZero?: boolean }
  | { kind: 'size' }
  | { kind: 'int'; min?: number; max?: number }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: readonly string[] };

export interface OptSpec {
  key: string;
  type: OptType;
  required?: boolean;
  /** The default as a user reads it (`'json'`, `the sink's name`); absent: no default. Docs only. */
  default?: string;
  /** The value may hold a credential: shown as a `${VAR}` template, never substituted, in generated files. */
  secret?: boolean;
  /** One line for docs/connectors.md. */
  doc?: string;
}

export const str: OptType = { kind: 'string' };
export const duration: OptType = { kind: 'duration' };
export const size: OptType = { kind: 'size' };
export const bool: OptType = { kind: 'boolean' };
export const int = (min?: number, max?: number): OptType => ({ kind: 'int', min, max });
export const num: OptType = { kind: 'number' };
export const oneOf = (...values: string[]): OptType => ({ kind: 'enum', values });

/** A lint that belongs to one connector (run with the generic ones by src/lint/). */
export interface ConnectorLint {
  /** The diagnostic code the rule reports (one rule, one code). */
  code: Code;
  run(ctx: { plan: PlanDoc; index: PlanIndex; diags: DiagnosticBag }): void;
}

/** Keys outside the fixed table, such as datagen's `fields.<col>.<attr>`. */
export interface DynamicOptions {
  /** The key pattern as docs show it: `fields.<column>.<attr>`. */
  pattern: string;
  /** Matches a key; the captured groups are (column, attr). */
  match: RegExp;
  attrs: Record<string, OptType>;
  doc: string;
}

/** What a resolver gets besides the options. */
export interface ResolveContext {
  pipeline: string;
}

export interface SourceSide<C = unknown> {
  options: readonly OptSpec[];
  dynamic?: DynamicOptions;
  /** The typed config with every default applied (what the physical plan carries). */
  resolve(s: IrSource, ctx: ResolveContext): C;
}

export interface SinkSide<C = unknown> {
  options: readonly OptSpec[];
  resolve(s: IrSink, ctx: ResolveContext): C;
}

/** How each target realises the connector; absent: that target cannot. */
export interface TargetRealisation {
  /** `@pipec/runtime/<module>` and the `RuntimeModule` it exports (targets/runtime/lib/modules/). */
  runtime?: { source?: RuntimeModuleRef; sink?: RuntimeModuleRef };
  /** ClickHouse target: the table engine (or ingestion) the connector becomes. */
  clickhouse?: string;
  /** Iceberg target: the table properties the connector sets. */
  iceberg?: string;
  /** Flink SQL target: the `'connector'` of its CREATE TABLE. */
  flink?: { source?: string; sink?: string };
}

export interface RuntimeModuleRef {
  /** The module's name: `@pipec/runtime/<module>`, targets/runtime/lib/modules/<module>.ts. */
  module: string;
  /** The `RuntimeModule` the file exports under this name. */
  binding: string;
}

export interface ConnectorDescriptor {
  /** The `connector = '...'` value. */
  name: string;
  /** One paragraph for docs/connectors.md. */
  doc: string;
  source?: SourceSide;
  sink?: SinkSide;
  lints?: readonly ConnectorLint[];
  targets: TargetRealisation;
}

/** Options every source takes, whatever the connector. */
export const COMMON_SOURCE_OPTIONS: readonly OptSpec[] = [
  { key: 'connector', type: str, required: true, doc: 'The connector name.' },
  // The watermark rule of LANGUAGE.md does not depend on the connector.
  { key: 'idle_timeout', type: duration, doc: 'A source silent this long stops holding back the watermark.' },
];

export const COMMON_SINK_OPTIONS: readonly OptSpec[] = [{ key: 'connector', type: str, required: true, doc: 'The connector name.' }];
