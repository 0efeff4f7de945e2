// Code of an Iceberg sink's `iceberg` field in the generated sink definitions: the table
// layout and properties exactly as the Iceberg target computes them (table-layout.ts,
// table-properties.ts, table-metadata.ts), the catalog (the physical plan's) with `${VAR}` option
// values resolved from `env` at run time (never their values: generated files hold no secrets), and the
// write settings. The runtime's lib/iceberg/ reads it (`IcebergSinkSpec`).
import type { IrSink } from '../../../src/plan/ir.ts';
import type { PhysicalPlan, PlanValue } from '../../../src/plan/physical/types.ts';
import type { IcebergSinkInput } from '../../iceberg/sink-input.ts';
import { emptyLock } from '../../iceberg/field-id-lock.ts';
import { buildLayout, type LayoutProblem } from '../../iceberg/table-layout.ts';
import { tableProperties } from '../../iceberg/table-properties.ts';
import { tableMetadata } from '../../iceberg/table-metadata.ts';
import { jsJson, jsString } from './js-text.ts';

const q = jsString;

/** The same rule as module.ts `optionsCode`: `${VAR}` templates are substituted at run time. */
function optionsCode(opts: Record<string, PlanValue>, indent: string): string {
  const keys = Object.keys(opts).sort();
  if (keys.length === 0) return '{}';
  const code = (o: PlanValue): string => (o.envVars.length > 0 ? `rt.subst(${q(o.text)}, env)` : q(o.text));
  return '{\n' + keys.map((k) => `${indent}  ${q(k)}: ${code(opts[k]!)},`).join('\n') + `\n${indent}}`;
}

/** JSON as readable JS: one key per line, indented to sit inside the sink definition. */
function jsonCode(v: unknown, indent: string): string {
  return jsJson(v, 2).split('\n').join(`\n${indent}`);
}

/**
 * `, iceberg: { ... }` for an Iceberg sink, '' for any other sink. The layout starts from an
 * empty field-id lock: ids only matter when the runtime creates the table, and an existing
 * table's own schema is what the sink writes by (columns matched by name).
 */
export function icebergSinkField(phys: PhysicalPlan, s: IcebergSinkInput | undefined, indent: string): string {
  if (!s) return '';
  const ice = s.config;
  const lock = emptyLock(ice.table);
  const problems: LayoutProblem[] = [];
  const layout = buildLayout(s, lock, problems);
  const properties = tableProperties(
    phys.pipeline.name,
    s,
    phys.compactions.filter((c) => c.sink === s.name),
  );
  const catalog = phys.catalogs.find((c) => c.name === ice.catalog);
  const { location: _location, 'table-uuid': _uuid, ...metadata } = tableMetadata(phys.pipeline.name, s, catalog, lock, layout, properties);
  const i2 = indent + '  ';
  const lines = [
    `iceberg: {`,
    `${i2}table: ${q(ice.table)},`,
    catalog
      ? `${i2}catalog: { name: ${q(catalog.name)}, type: ${q(catalog.type)}, options: ${optionsCode(catalog.options, i2)} },`
      : `${i2}catalog: null,`,
    `${i2}formatVersion: ${ice.formatVersion}, targetFileSizeBytes: ${ice.targetFileSizeBytes}, commitIntervalMs: ${ice.commitIntervalMs},`,
    `${i2}writeMode: ${q(ice.writeMode)}, compression: ${q(ice.compressionCodec)},`,
    `${i2}changelog: ${q(s.changelog)}, upsertKey: ${s.upsertKey ? `[${s.upsertKey.map(q).join(', ')}]` : 'null'},`,
    `${i2}metadata: ${jsonCode(metadata, i2)},`,
    `${indent}}`,
  ];
  return `, ${lines.join('\n')}`;
}

/**
 * Why the runtime cannot run this Iceberg sink, or null. Upsert/retract input is written as
 * row-level changes by the upsert key (position deletes or rewritten files, lib/iceberg/);
 * a changelog without a key has nothing to replace or delete rows by.
 */
export function icebergSinkUnsupported(s: IrSink): string | null {
  if (s.connector !== 'iceberg' || s.changelog === 'append' || s.upsertKey) return null;
  return `an Iceberg sink fed by ${s.changelog} (changelog) input without a key (rows are replaced and deleted by key)`;
}
