// Shared state of one ClickHouse emission: options, emitted statements and compiled relations.
// A relation is an operator's output as SQL over one FROM clause, so stateless operators compose
// into one SELECT and only aggregates, unions and stored sources become tables.
import type { DiagnosticBag } from '../../src/diagnostics/bag.ts';
import type { IrColumn, PlanDoc, WindowAggOp, GroupAggOp } from '../../src/plan/ir.ts';
import { ident } from './sql-text.ts';
import { chType } from './types.ts';
import type { PhysicalPlan } from '../../src/plan/physical/types.ts';

export interface EmitOptions {
  /**
   * `kafka` (default): Kafka sources are `Kafka` engine tables. `insertable`: each Kafka source is a
   * plain MergeTree with the same columns (virtual columns become ordinary ones), so tests and demos
   * can INSERT rows; every statement downstream of the source tables is byte-identical.
   */
  sourceMode?: 'kafka' | 'insertable';
}

export type StmtRole = 'setup' | 'source' | 'pipeline';

export interface Stmt {
  role: StmtRole;
  comments: string[];
  sql: string;
  /** The statement that undoes it (teardown), or null. */
  drop: string | null;
}

/** A row stream or a read-time view, as SQL over `from`. */
export interface Rel {
  /** FROM clause text: a qualified table/view, or a join of aliased subqueries. */
  from: string;
  /** Output column name → SQL over `from`, in output order. */
  cols: Map<string, string>;
  types: Map<string, IrColumn['type']>;
  where: string[];
  /**
   * `stream`: rows arrive by inserts, so a materialized view can react to them.
   * `read`: a view over merged aggregate states; nothing fires downstream of it.
   */
  kind: 'stream' | 'read';
  /** Version and delete-flag expressions of a CDC changelog (ReplacingMergeTree), or null. */
  changelog: { version: string; deleted: string } | null;
  /** Source ids upstream (for watermarks and lints). */
  sources: string[];
  /** For `read` relations: the aggregate whose stored states this view merges. */
  agg: { op: WindowAggOp | GroupAggOp; stateTable: string; input: Rel } | null;
}

export interface EmitContext {
  plan: PlanDoc;
  /** The plan's physical lowering: each sink's table and layout (PhysicalSink.table). */
  physical: PhysicalPlan;
  bag: DiagnosticBag;
  sourceMode: 'kafka' | 'insertable';
  /** The pipeline's own database (named after the pipeline). */
  db: string;
  stmts: Stmt[];
  rels: Map<string, Rel>;
  /** Named collections the DDL expects (name → settings with their `${VAR}` templates). */
  collections: Map<string, [string, string][]>;
  /** Databases already created. */
  databases: Set<string>;
  /**
   * The materialized views that read a Kafka engine table, emitted after every other statement: the
   * Kafka engine starts consuming when its first view is attached, so a row consumed before the last
   * downstream view existed would be lost to it (see sources.ts, topicTable).
   */
  ignitions: Stmt[];
}

/** `SELECT <cols> FROM (SELECT <exprs> AS __cN FROM rel)`: inner aliases cannot shadow source columns. */
export function selectFrom(rel: Rel, extra: [string, string][] = []): string {
  const all: [string, string][] = [...rel.cols.entries(), ...extra];
  // Computed columns are cast to their IR type (comparisons give UInt8, not Bool; widths differ).
  const typed = (n: string, e: string): string => {
    const t = rel.types.get(n);
    return t && e !== ident(n) && !e.startsWith('CAST(') ? `CAST(${e} AS ${chType(t)})` : e;
  };
  const inner = all.map(([n, e], i) => `${typed(n, e)} AS ${ident(`__c${i}`)}`).join(', ');
  const outer = all.map(([n], i) => `${ident(`__c${i}`)} AS ${ident(n)}`).join(', ');
  const where = rel.where.length ? ` WHERE ${rel.where.join(' AND ')}` : '';
  return `SELECT ${outer}\nFROM (SELECT ${inner} FROM ${rel.from}${where})`;
}

/** A relation whose columns are the stored columns of a table or view. */
export function tableRel(from: string, columns: IrColumn[], kind: Rel['kind'], sources: string[]): Rel {
  return {
    from,
    cols: new Map(columns.map((c) => [c.name, ident(c.name)])),
    types: new Map(columns.map((c) => [c.name, c.type])),
    where: [],
    kind,
    changelog: null,
    sources,
    agg: null,
  };
}

export function addStmt(ctx: EmitContext, role: StmtRole, comments: string[], sql: string, drop: string | null): void {
  ctx.stmts.push({ role, comments, sql, drop });
}

/** Whether a table or view of that qualified name is already created by this emission. */
export function objectExists(ctx: EmitContext, qualifiedName: string): boolean {
  const prefix = /^CREATE (?:TABLE|VIEW|MATERIALIZED VIEW) IF NOT EXISTS (\S+)/;
  return ctx.stmts.some((s) => prefix.exec(s.sql)?.[1] === qualifiedName);
}

export function ensureDatabase(ctx: EmitContext, db: string): void {
  if (ctx.databases.has(db)) return;
  ctx.databases.add(db);
  addStmt(ctx, 'setup', [], `CREATE DATABASE IF NOT EXISTS ${ident(db)}`, null);
}

export function fmtMs(ms: number): string {
  if (ms % 86_400_000 === 0 && ms !== 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0 && ms !== 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0 && ms !== 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
