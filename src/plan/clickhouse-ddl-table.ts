// Which table the ClickHouse target's DDL creates for a ClickHouse sink. The runtime's ClickHouse sink writes the
// sink's `table` option; the DDL must not write the same table by default, or running both (a common migration and
// comparison set-up) would double every row. So the DDL's table lives in the pipeline's own database, named after
// the sink, unless the sink's `ddl_table` option names one (docs/language-decisions.md, "ClickHouse table names").
import type { IrSink } from './ir.ts';

export interface DdlTable {
  db: string;
  table: string;
  /** Whether the `ddl_table` option chose it. */
  explicit: boolean;
}

export function clickhouseDdlTable(pipeline: string, sink: IrSink): DdlTable {
  const written = sink.connector === 'clickhouse' ? sink.clickhouse.ddlTable : undefined;
  if (written === undefined) return { db: pipeline, table: sink.name, explicit: false };
  const dot = written.indexOf('.');
  return dot < 0 ? { db: pipeline, table: written, explicit: true } : { db: written.slice(0, dot), table: written.slice(dot + 1), explicit: true };
}
