// What a printed plan may show. An option fed by `${NAME}` (an environment variable or a
// profile value: a DSN, a URL with its password, a broker list) is shown as its template,
// never its value: plans end up in CI logs, pull requests and `generated/*/plan.txt`.
// `shownPlan` is applied by every plan printer (text, json, dot), so no caller can forget it.
import type { IrOption, IrSink, IrSource, PlanDoc } from '../ir.ts';

/** The text a reviewer may see: the template when a variable fed the option, else the value. */
export function shownOption(o: IrOption): string {
  return o.envVars.length > 0 ? o.template : o.value;
}

function shownOptions(opts: Record<string, IrOption>): Record<string, IrOption> {
  const out: Record<string, IrOption> = {};
  for (const [k, o] of Object.entries(opts)) out[k] = o.envVars.length > 0 ? { ...o, value: o.template } : o;
  return out;
}

/** The option's template when a variable fed it; undefined otherwise (keep the derived field). */
function fromEnv(opts: Record<string, IrOption>, key: string): string | undefined {
  const o = opts[key];
  return o && o.envVars.length > 0 ? o.template : undefined;
}

/** Connector fields the checker derived from options (topic, path, table, ...), shown as written. */
function shownSink(s: IrSink): IrSink {
  const o = s.options;
  const options = shownOptions(o);
  switch (s.connector) {
    case 'kafka':
      return { ...s, options, kafka: { ...s.kafka, topic: fromEnv(o, 'topic') ?? s.kafka.topic } };
    case 'file':
      return { ...s, options, file: { ...s.file, path: fromEnv(o, 'path') ?? s.file.path } };
    case 'clickhouse': {
      const orderBy = fromEnv(o, 'order_by');
      const clickhouse = {
        ...s.clickhouse,
        table: fromEnv(o, 'table') ?? s.clickhouse.table,
        ...(s.clickhouse.ddlTable !== undefined ? { ddlTable: fromEnv(o, 'ddl_table') ?? s.clickhouse.ddlTable } : {}),
        orderBy: orderBy !== undefined ? [orderBy] : s.clickhouse.orderBy,
        partitionBy: fromEnv(o, 'partition_by') ?? s.clickhouse.partitionBy,
        ttl: fromEnv(o, 'ttl') ?? s.clickhouse.ttl,
      };
      return { ...s, options, clickhouse };
    }
    case 'iceberg':
      return { ...s, options, iceberg: { ...s.iceberg, catalog: fromEnv(o, 'catalog') ?? s.iceberg.catalog, table: fromEnv(o, 'table') ?? s.iceberg.table } };
    default:
      return { ...s, options };
  }
}

function shownSource(s: IrSource): IrSource {
  return { ...s, options: shownOptions(s.options), schemaRef: fromEnv(s.options, 'schema') ?? s.schemaRef };
}

/** The plan as printers show it: every `${NAME}`-fed value replaced by its template. */
export function shownPlan(plan: PlanDoc): PlanDoc {
  return {
    ...plan,
    pipeline: { ...plan.pipeline, options: shownOptions(plan.pipeline.options) },
    catalogs: plan.catalogs.map((c) => ({ ...c, options: shownOptions(c.options) })),
    sources: plan.sources.map(shownSource),
    sinks: plan.sinks.map(shownSink),
  };
}
