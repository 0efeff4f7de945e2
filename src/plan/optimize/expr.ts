// Expression helpers shared by the optimizer passes: bottom-up mapping, column references,
// AND-conjuncts, and re-typing a replacement so an operator's output types never change.
import { sameType, withNullable } from '../../types/sql-type.ts';
import type { IrExpr, SqlType } from '../ir.ts';
import { assertNever } from '../../util/assert-never.ts';

/** Rebuilds an expression bottom-up: `f` sees each node with its children already mapped. */
export function mapExpr(e: IrExpr, f: (e: IrExpr) => IrExpr): IrExpr {
  switch (e.kind) {
    case 'col':
    case 'lit':
      return f(e);
    case 'call':
      return f({ ...e, args: e.args.map((a) => mapExpr(a, f)) });
    case 'cast':
      return f({ ...e, operand: mapExpr(e.operand, f) });
    case 'case':
      return f({
        ...e,
        whens: e.whens.map((w) => ({ when: mapExpr(w.when, f), then: mapExpr(w.then, f) })),
        else: e.else ? mapExpr(e.else, f) : null,
      });
    default:
      return assertNever(e);
  }
}

/** Visits every node of an expression, parents first. */
export function visitExpr(e: IrExpr, f: (e: IrExpr) => void): void {
  f(e);
  switch (e.kind) {
    case 'col':
    case 'lit':
      return;
    case 'call':
      for (const a of e.args) visitExpr(a, f);
      return;
    case 'cast':
      visitExpr(e.operand, f);
      return;
    case 'case':
      for (const w of e.whens) {
        visitExpr(w.when, f);
        visitExpr(w.then, f);
      }
      if (e.else) visitExpr(e.else, f);
      return;
    default:
      assertNever(e);
  }
}

/** Names of the columns of input `input` an expression reads. */
export function columnRefs(e: IrExpr, input = 0): Set<string> {
  const out = new Set<string>();
  visitExpr(e, (x) => {
    if (x.kind === 'col' && x.input === input) out.add(x.name);
  });
  return out;
}

/** Inputs (0 = left, 1 = right) an expression reads. */
export function inputsRead(e: IrExpr): Set<number> {
  const out = new Set<number>();
  visitExpr(e, (x) => {
    if (x.kind === 'col') out.add(x.input);
  });
  return out;
}

export function conjuncts(e: IrExpr): IrExpr[] {
  return e.kind === 'call' && e.fn === 'and' ? e.args.flatMap(conjuncts) : [e];
}

/** AND of the conjuncts (left-deep), typed nullable if any conjunct is. */
export function andAll(es: IrExpr[]): IrExpr {
  return es.reduce((acc, x) => ({
    kind: 'call',
    fn: 'and',
    args: [acc, x],
    type: { kind: 'boolean', nullable: acc.type.nullable || x.type.nullable },
  }));
}

/**
 * `replacement` typed as `original` was: equal types pass through, a literal takes the type
 * when only nullability differs, anything else is wrapped in a CAST (a no-op at run time).
 */
export function retype(replacement: IrExpr, type: SqlType): IrExpr {
  if (sameType(replacement.type, type)) return replacement;
  if (replacement.kind === 'lit' && sameType(replacement.type, type, true)) return { ...replacement, type: withNullable(replacement.type, type.nullable) };
  return { kind: 'cast', operand: replacement, type };
}
