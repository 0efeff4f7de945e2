// Name resolution of columns inside one SELECT: the relations of its FROM clause, their
// columns, qualified `t.col`/`t.*`, ambiguity in joins and "did you mean" suggestions.
import type { Ident } from '../syntax/ast.ts';
import type { Span } from '../diagnostics/span.ts';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { SqlType } from '../types/sql-type.ts';
import { suggest } from '../util/suggest.ts';

export const WINDOW_COLUMNS = ['window_start', 'window_end', 'window_time'] as const;
export type WindowColumn = (typeof WINDOW_COLUMNS)[number];

export interface ScopeColumn {
  /** The name users write. */
  name: string;
  type: SqlType;
  /** Join side (0 = left, 1 = right) in ON; 0 elsewhere. */
  input: number;
  /** The column's name in the operator output that feeds the expression. */
  irName: string;
  /** Set on window_start/window_end/window_time added by a window table function. */
  window?: WindowColumn;
}

export interface ScopeRelation {
  /** Alias, or the table name when there is no alias; null for an unaliased subquery. */
  name: string | null;
  columns: ScopeColumn[];
}

/** Finds a column by identifier: quoted names match exactly, bare names case-insensitively. */
export function matchColumns<C extends { name: string }>(columns: readonly C[], id: { name: string; quoted: boolean }): C[] {
  if (id.quoted) return columns.filter((c) => c.name === id.name);
  const exact = columns.filter((c) => c.name === id.name);
  if (exact.length > 0) return exact;
  return columns.filter((c) => c.name.toLowerCase() === id.name.toLowerCase());
}

export function findColumn<C extends { name: string }>(columns: readonly C[], id: { name: string; quoted: boolean }): C | null {
  const m = matchColumns(columns, id);
  return m.length === 1 ? m[0]! : null;
}

export type Resolved = { ok: true; column: ScopeColumn } | { ok: false; windowMissing: boolean };

export class Scope {
  constructor(
    readonly relations: ScopeRelation[],
    /** For messages: `orders`, `the join of o and c`. */
    readonly label: string,
  ) {}

  relation(q: Ident, bag: DiagnosticBag): ScopeRelation | null {
    const r = this.relations.filter((rel) => rel.name !== null && matchName(rel.name, q));
    if (r.length === 1) return r[0]!;
    const names = this.relations.flatMap((rel) => (rel.name ? [rel.name] : []));
    bag.report('unknown-qualifier', q.span, { name: q.name, suggestion: suggest(q.name, names) });
    return null;
  }

  /** Resolves a column reference, reporting unknown and ambiguous names. */
  resolve(qualifier: Ident | null, name: Ident, span: Span, bag: DiagnosticBag): Resolved {
    if (qualifier) {
      const rel = this.relation(qualifier, bag);
      if (!rel) return { ok: false, windowMissing: false };
      const m = matchColumns(rel.columns, name);
      if (m.length === 1) return { ok: true, column: m[0]! };
      if (m.length > 1) {
        bag.report('ambiguous-column', span, { name: name.name, relations: rel.name ?? 'the subquery' });
        return { ok: false, windowMissing: false };
      }
      return this.unknown(name, span, bag, rel.columns, `'${rel.name}'`);
    }
    const hits: { rel: ScopeRelation; col: ScopeColumn }[] = [];
    for (const rel of this.relations) for (const col of matchColumns(rel.columns, name)) hits.push({ rel, col });
    if (hits.length === 1) return { ok: true, column: hits[0]!.col };
    if (hits.length > 1) {
      bag.report('ambiguous-column', span, { name: name.name, relations: hits.map((h) => h.rel.name ?? 'a subquery').join(', ') });
      return { ok: false, windowMissing: false };
    }
    return this.unknown(name, span, bag, this.relations.flatMap((r) => r.columns), this.label);
  }

  private unknown(name: Ident, span: Span, bag: DiagnosticBag, columns: ScopeColumn[], where: string): Resolved {
    if (!name.quoted && (WINDOW_COLUMNS as readonly string[]).includes(name.name)) {
      bag.report('window-column-unavailable', span, { name: name.name, reason: 'without a window table function (TUMBLE, HOP, CUMULATE, SESSION) in FROM' });
      return { ok: false, windowMissing: true };
    }
    bag.report('unknown-column', span, { name: name.name, where, suggestion: suggest(name.name, columns.map((c) => c.name)) });
    return { ok: false, windowMissing: false };
  }

  /** Columns of `*` or `t.*`, in FROM order. */
  star(qualifier: Ident | null, bag: DiagnosticBag): ScopeColumn[] | null {
    if (qualifier) {
      const rel = this.relation(qualifier, bag);
      return rel ? rel.columns : null;
    }
    return this.relations.flatMap((r) => r.columns);
  }

  allColumns(): ScopeColumn[] {
    return this.relations.flatMap((r) => r.columns);
  }
}

export function matchName(declared: string, id: { name: string; quoted: boolean }): boolean {
  return id.quoted ? declared === id.name : declared.toLowerCase() === id.name.toLowerCase();
}

/** Calcite's uniquify: a repeated output name gets the first free suffix 0, 1, 2, ... */
export function uniquify(names: string[]): string[] {
  const used = new Set<string>();
  return names.map((n) => {
    let out = n;
    for (let i = 0; used.has(out.toLowerCase()); i++) out = `${n}${i}`;
    used.add(out.toLowerCase());
    return out;
  });
}
