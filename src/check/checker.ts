// The state of one check run: the symbol table of statements, the operators built so far
// (in topological order, with deterministic ids) and helpers that append common operators.
import type { Ident, Statement } from '../syntax/ast.ts';
import type { Span } from '../diagnostics/span.ts';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { SchemaLoader } from '../schema/schema-loader.ts';
import type { IrColumn, IrExpr, IrNamedExpr, IrOperator, IrSource, IrCatalog, Changelog } from '../plan/ir.ts';
import { suggest } from '../util/suggest.ts';
import { matchName } from './scope.ts';

export interface CheckContext {
  diagnostics: DiagnosticBag;
  schemas: SchemaLoader;
  /** Folder of the spec. */
  baseDir: string;
  /** Spec path as shown in generated files. */
  relFile: string;
}

/** An operator's output as seen by the operators that read it. */
export interface Stream {
  op: IrOperator;
  /** True when every source feeding it ends (bounded file/datagen): its state ends too. */
  bounded: boolean;
  /** For messages: the source or view name. */
  label: string;
  /** Set when the relation declared an event-time column that was in error (no follow-on errors). */
  timeInError?: boolean;
}

export type SymbolKind = 'source' | 'view' | 'sink' | 'catalog' | 'compaction policy';

export interface SymbolEntry {
  kind: SymbolKind;
  name: string;
  stmt: Statement;
}

export interface SourceInfo {
  ir: IrSource;
  bounded: boolean;
  /** A WATERMARK was declared but was in error. */
  watermarkInError: boolean;
}

export class Checker {
  readonly bag: DiagnosticBag;
  readonly symbols = new SymbolTable();
  readonly operators: IrOperator[] = [];
  private readonly ids = new Set<string>();
  readonly sources = new Map<string, SourceInfo>();
  readonly viewStreams = new Map<string, Stream>();
  readonly catalogs = new Map<string, IrCatalog>();
  /** Views whose planning failed: reading them reports nothing more. */
  readonly failedViews = new Set<string>();

  constructor(readonly ctx: CheckContext) {
    this.bag = ctx.diagnostics;
  }

  lookup(id: { name: string; quoted: boolean }): SymbolEntry | null {
    const exact = this.symbols.get(id.name);
    if (exact) return exact;
    if (id.quoted) return null;
    return this.symbols.firstCaseInsensitive(id.name);
  }

  namesOf(...kinds: SymbolKind[]): string[] {
    return [...this.symbols.values()].filter((s) => kinds.includes(s.kind)).map((s) => s.name);
  }

  /** A relation to read from (source or view), reporting unknown names and wrong kinds. */
  lookupRelation(id: Ident): SymbolEntry | null {
    const s = this.lookup(id);
    if (!s) {
      this.bag.report('unknown-relation', id.span, { name: id.name, suggestion: suggest(id.name, this.namesOf('source', 'view')) });
      return null;
    }
    if (s.kind !== 'source' && s.kind !== 'view') {
      this.bag.report('wrong-relation-kind', id.span, { name: id.name, kind: s.kind, expected: 'source or view' });
      return null;
    }
    return s;
  }

  /** A unique operator id: `base`, or `base#2`, `base#3`, ... when taken. */
  allocId(base: string): string {
    let id = base;
    for (let i = 2; this.ids.has(id); i++) id = `${base}#${i}`;
    this.ids.add(id);
    return id;
  }

  /** A point to roll back to: a query in error leaves no operators behind. */
  mark(): number {
    return this.operators.length;
  }

  rollback(mark: number): void {
    for (const op of this.operators.splice(mark)) this.ids.delete(op.id);
  }

  push<O extends IrOperator>(op: O): O {
    this.operators.push(op);
    return op;
  }

  /** The stream of a source (a new scan) or of a view (its operator); null when it failed earlier. */
  readRelation(sym: SymbolEntry, prefix: string, span: Span): Stream | null {
    if (sym.kind === 'view') return this.viewStreams.get(sym.name) ?? null;
    const src = this.sources.get(sym.name);
    if (!src) return null;
    const ir = src.ir;
    const changelog: Changelog = ir.changelog === 'changelog' ? 'retract' : 'append';
    const op = this.push({
      op: 'scan',
      id: this.allocId(`${prefix}/scan`),
      inputs: [],
      source: ir.id,
      schema: ir.columns.map((c) => ({ ...c })),
      changelog,
      upsertKey: changelog === 'retract' ? (ir.primaryKey ? [...ir.primaryKey] : null) : null,
      stateBound: { kind: 'stateless' },
      timeColumn: ir.watermark?.column ?? null,
      span,
    });
    return { op, bounded: src.bounded, label: ir.name, timeInError: src.watermarkInError };
  }

  addFilter(prefix: string, suffix: string, input: Stream, predicate: IrExpr, span: Span): Stream {
    const i = input.op;
    const op = this.push({
      op: 'filter',
      id: this.allocId(`${prefix}/${suffix}`),
      inputs: [i.id],
      schema: i.schema.map((c) => ({ ...c })),
      changelog: i.changelog,
      upsertKey: i.upsertKey ? [...i.upsertKey] : null,
      stateBound: { kind: 'stateless' },
      timeColumn: i.timeColumn,
      predicate,
      span,
    });
    return { ...input, op };
  }

  addProject(prefix: string, input: Stream, exprs: IrNamedExpr[], span: Span, step = 'project'): Stream {
    const i = input.op;
    // A plain column reference carries the column's identity: event time and upsert keys survive renames.
    const renamed = (col: string): string | null => exprs.find((e) => e.expr.kind === 'col' && e.expr.name === col)?.name ?? null;
    let changelog = i.changelog;
    let upsertKey: string[] | null = null;
    if (i.upsertKey) {
      const mapped = i.upsertKey.map(renamed);
      if (mapped.every((m): m is string => m !== null)) upsertKey = mapped;
      else if (changelog === 'upsert') changelog = 'retract';
    }
    const metadata = new Map(i.schema.map((c) => [c.name, c]));
    const schema: IrColumn[] = exprs.map((e) => {
      const src = e.expr.kind === 'col' ? metadata.get(e.expr.name) : undefined;
      const col: IrColumn = { name: e.name, type: e.expr.type, metadataFrom: src?.metadataFrom ?? null };
      if (src?.cardinalityHint !== undefined) col.cardinalityHint = src.cardinalityHint;
      return col;
    });
    const op = this.push({
      op: 'project',
      id: this.allocId(`${prefix}/${step}`),
      inputs: [i.id],
      schema,
      changelog,
      upsertKey,
      stateBound: { kind: 'stateless' },
      timeColumn: i.timeColumn ? renamed(i.timeColumn) : null,
      exprs,
      span,
    });
    return { ...input, op };
  }
}

/**
 * The declared names, with an index by lower-case name so an unquoted lookup that misses the
 * exact name is one map read, not a scan of every symbol (3,000 statements were 9M compares).
 */
export class SymbolTable extends Map<string, SymbolEntry> {
  private readonly lower = new Map<string, SymbolEntry>();
  override set(name: string, entry: SymbolEntry): this {
    super.set(name, entry);
    // The first declared wins, as the scan in insertion order did; a replaced entry is refreshed.
    const k = name.toLowerCase();
    const cur = this.lower?.get(k);
    if (!cur || cur.name === name) this.lower?.set(k, entry);
    return this;
  }
  firstCaseInsensitive(name: string): SymbolEntry | null {
    return this.lower.get(name.toLowerCase()) ?? null;
  }
}
