// The syntax tree both front ends (.pipe.sql via ./sql/, .pipe.yaml via ./yaml/) produce.
// Tagged unions with a literal `kind`; every node carries its span. Meaning (names, types,
// durations) is resolved later by src/check/, which turns this tree into the plan IR.
import type { Span } from '../diagnostics/span.ts';
import type { SqlType } from '../types/sql-type.ts';
import type { TimeUnit } from '../types/time-unit.ts';

export interface Ident {
  /** Case-folded (lower-case) unless the identifier was "quoted". */
  name: string;
  quoted: boolean;
  span: Span;
}

/** A dotted name such as `analytics.revenue_1m` or `o.customer_id`. */
export interface QualifiedName {
  parts: Ident[];
  span: Span;
}

// ---------------------------------------------------------------- options (WITH (...))

export interface OptionValue {
  kind: 'string' | 'number' | 'boolean';
  /** The value after `${VAR}` substitution (numbers and booleans as written, e.g. "16"). */
  text: string;
  /** The literal as written, before substitution (for `pipec fmt`). */
  raw: string;
  /** Names of `${VAR}`s substituted into it: targets must not write such values out. */
  envVars: string[];
  span: Span;
}

export interface OptionEntry {
  /** Dotted key, lower-cased: `fields.amount.kind`. */
  key: string;
  keySpan: Span;
  value: OptionValue;
  span: Span;
}

// ---------------------------------------------------------------- statements

export interface PipeFile {
  /** Path as given to the compiler. */
  file: string;
  source: 'sql' | 'yaml';
  statements: Statement[];
  /** `-- pipec:allow CODE` comments, each silencing CODE on the statement that follows. */
  suppressions: Suppression[];
  /** The comments of the file in source order, in SQL spelling (`#x` of YAML is `--x`), so `pipec fmt` can keep them. */
  comments?: SourceComment[];
  span: Span;
}

export interface Suppression {
  code: string;
  span: Span;
}

export interface SourceComment {
  /** As written, markers included: `-- note` or `/* note *\/`. */
  text: string;
  span: Span;
}

export type Statement =
  | PipelineStmt
  | CreateSourceStmt
  | CreateViewStmt
  | CreateSinkStmt
  | CreateCatalogStmt
  | CreateCompactionStmt;

export interface PipelineStmt {
  kind: 'pipeline';
  name: Ident;
  options: OptionEntry[];
  span: Span;
}

export interface ColumnDef {
  name: Ident;
  type: SqlType;
  typeSpan: Span;
  /** `METADATA FROM 'offset'`; null for a physical column. */
  metadataFrom: { key: string; span: Span } | null;
  span: Span;
}

export interface WatermarkDef {
  column: Ident;
  /** The expression after AS, e.g. `order_ts - INTERVAL '5' SECOND`. */
  expr: Expr;
  span: Span;
}

export interface CreateSourceStmt {
  kind: 'source';
  name: Ident;
  /** null when no column list was written (columns then come from the schema). */
  columns: ColumnDef[] | null;
  watermark: WatermarkDef | null;
  primaryKey: { columns: Ident[]; span: Span } | null;
  options: OptionEntry[];
  span: Span;
}

export type EmitMode = 'on_window_close' | 'changes';

export type OnLate = { kind: 'drop'; span: Span } | { kind: 'to'; target: Ident; span: Span };

export interface CreateViewStmt {
  kind: 'view';
  name: Ident;
  query: Query;
  emit: { mode: EmitMode; span: Span } | null;
  allowedLateness: IntervalLit | null;
  onLate: OnLate | null;
  options: OptionEntry[];
  span: Span;
}

export interface CreateSinkStmt {
  kind: 'sink';
  name: Ident;
  /** `CREATE SINK s FROM view`. */
  from: QualifiedName | null;
  /** `CREATE SINK s AS SELECT ...`. Neither from nor query: a sink that only receives late events. */
  query: Query | null;
  options: OptionEntry[];
  span: Span;
}

export interface CreateCatalogStmt {
  kind: 'catalog';
  name: Ident;
  options: OptionEntry[];
  span: Span;
}

export interface SizeLit {
  /** As written inside the quotes, e.g. `32 MB`. */
  text: string;
  span: Span;
}

export type CompactionAction =
  | {
      kind: 'rewrite_data_files';
      /** `WHERE file_size < '32 MB'`. */
      fileSizeBelow: SizeLit | null;
      target: SizeLit | null;
      minInputFiles: number | null;
      span: Span;
    }
  | {
      kind: 'rewrite_delete_files';
      /** `WHERE delete_ratio > 0.5` (a fraction) or `> 50 PERCENT`; stored as a fraction 0..1. */
      deleteRatioAbove: number;
      /** The number as written before `PERCENT` (`30` of `30 PERCENT`), so fmt keeps the notation; absent otherwise. */
      percentText?: string;
      span: Span;
    }
  | { kind: 'expire_snapshots'; olderThan: IntervalLit; retainLast: number | null; span: Span }
  | { kind: 'remove_orphan_files'; olderThan: IntervalLit; span: Span };

export interface CreateCompactionStmt {
  kind: 'compaction';
  name: Ident;
  /** The Iceberg sink the policy maintains. */
  target: Ident;
  actions: CompactionAction[];
  schedule: IntervalLit | null;
  span: Span;
}

// ---------------------------------------------------------------- queries

export type Query = SelectQuery | UnionAllQuery;

export interface UnionAllQuery {
  kind: 'union_all';
  inputs: SelectQuery[];
  span: Span;
}

export type SelectItem =
  | { kind: 'star'; qualifier: Ident | null; span: Span }
  | { kind: 'expr'; expr: Expr; alias: Ident | null; span: Span };

export interface SelectQuery {
  kind: 'select';
  items: SelectItem[];
  from: FromItem;
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
  span: Span;
}

export type WindowFn = 'tumble' | 'hop' | 'cumulate' | 'session';

export type FromItem = TableRef | WindowTvf | JoinItem | SubqueryRef;

export interface TableRef {
  kind: 'table';
  name: QualifiedName;
  alias: Ident | null;
  /** `FOR SYSTEM_TIME AS OF expr` (temporal join right side). */
  asOf: Expr | null;
  span: Span;
}

/**
 * `TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)` or Flink's long form
 * `TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_ts), INTERVAL '1' MINUTE))`; both parse to this.
 * args by function: tumble [size, offset?], hop [slide, size], cumulate [step, size], session [gap].
 */
export interface WindowTvf {
  kind: 'window';
  fn: WindowFn;
  input: TableRef;
  timeColumn: Ident;
  args: Expr[];
  /** SESSION(rel PARTITION BY a, b, ...) or SESSION(rel PARTITION BY (a, b), ...). */
  partitionBy: Ident[];
  alias: Ident | null;
  longForm: boolean;
  span: Span;
}

export interface JoinItem {
  kind: 'join';
  joinType: 'inner' | 'left';
  left: FromItem;
  right: FromItem;
  on: Expr;
  span: Span;
}

export interface SubqueryRef {
  kind: 'subquery';
  query: Query;
  alias: Ident | null;
  span: Span;
}

// ---------------------------------------------------------------- expressions

export type { TimeUnit } from '../types/time-unit.ts';

export interface IntervalLit {
  kind: 'interval';
  /** Length in milliseconds; months/years are not fixed-length and are rejected by the checker. */
  ms: number;
  /** As written: `INTERVAL '5' SECOND` → text "5", unit "second"; `INTERVAL '5 seconds'` → text "5 seconds", unit null. */
  text: string;
  unit: TimeUnit | null;
  span: Span;
}

export type BinaryOp =
  | '+' | '-' | '*' | '/' | '%'
  | '=' | '<>' | '<' | '<=' | '>' | '>='
  | 'and' | 'or' | '||';

export type Expr =
  | { kind: 'column'; qualifier: Ident | null; name: Ident; span: Span }
  | { kind: 'number'; text: string; span: Span }
  /** `value` is the text as written: `${NAME}` is not substituted in queries (only in options). */
  | { kind: 'string'; value: string; raw: string; span: Span }
  | { kind: 'boolean'; value: boolean; span: Span }
  | { kind: 'null'; span: Span }
  | IntervalLit
  | { kind: 'typed_literal'; type: 'timestamp' | 'date'; value: string; span: Span }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; span: Span }
  | { kind: 'unary'; op: '-' | 'not'; operand: Expr; span: Span }
  | { kind: 'is_null'; operand: Expr; negated: boolean; span: Span }
  | { kind: 'in'; operand: Expr; list: Expr[]; negated: boolean; span: Span }
  | { kind: 'between'; operand: Expr; low: Expr; high: Expr; negated: boolean; span: Span }
  | { kind: 'like'; operand: Expr; pattern: Expr; negated: boolean; span: Span }
  | { kind: 'case'; operand: Expr | null; whens: { when: Expr; then: Expr }[]; else: Expr | null; span: Span }
  | { kind: 'cast'; operand: Expr; type: SqlType; typeSpan: Span; span: Span }
  /** Function or aggregate call; `COUNT(*)` has star = true and no args. */
  | { kind: 'call'; name: Ident; args: Expr[]; distinct: boolean; star: boolean; span: Span }
  | { kind: 'extract'; unit: TimeUnit; operand: Expr; span: Span }
  /** `FLOOR(ts TO MINUTE)` / `CEIL(ts TO HOUR)`. */
  | { kind: 'floor_to'; ceil: boolean; operand: Expr; unit: TimeUnit; span: Span }
  /** `TIMESTAMPADD(MINUTE, 5, ts)`. */
  | { kind: 'timestampadd'; unit: TimeUnit; amount: Expr; operand: Expr; span: Span }
  /** `SUBSTRING(s FROM 2 FOR 3)` is parsed to a call `substring(s, 2, 3)`; `TRIM(BOTH ' ' FROM s)` to this. */
  | { kind: 'trim'; side: 'both' | 'leading' | 'trailing'; chars: Expr | null; operand: Expr; span: Span };

export type ExprKind = Expr['kind'];
