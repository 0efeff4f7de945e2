// Code generation for event-time temporal joins (`FOR SYSTEM_TIME AS OF left.time`): which
// version time the right (versioned) side gets, the key / residual / output functions, and
// the `b.temporalJoin` call (lib/ops/temporal-join.ts runs it).
//
// Version time: the right side's event-time column when it has one (a WATERMARK on the
// changelog source: Flink's versioned table). A changelog source joined directly without a
// WATERMARK gets its change commit time instead, as a column the decoder adds from the
// connector metadata (postgres-cdc `commit_ts`, Kafka record `timestamp` for debezium-json;
// snapshot rows have none: valid since ever), with a source watermark over it (no delay,
// idle after the source's `idle_timeout`, default 5 s): Flink's recipe for CDC versioned
// tables (op_ts as rowtime plus an idle timeout), made the default.
import type { IrColumn, IrExpr, TemporalJoinOp } from '../../../src/plan/ir.ts';
import { compileExpr, coerce, type ExprScope } from './expr.ts';
import { jsComment, jsString } from './js-text.ts';

// Which sources get a version clock is decided by the lowering (src/plan/physical/lower.ts).
export { VERSION_COLUMN } from '../../../src/plan/physical/lower.ts';
import { VERSION_COLUMN } from '../../../src/plan/physical/lower.ts';

/** Sentinel version time of a change without commit time (snapshot rows): before any event. */
export const SINCE_EVER = Number.MIN_SAFE_INTEGER;

export type { VersionClock } from '../../../src/plan/physical/types.ts';
import type { VersionClock } from '../../../src/plan/physical/types.ts';
import { columnIndex } from '../../../src/plan/graph.ts';

/** The added column of a versioned source's rows. */
export function versionColumn(clock: VersionClock): IrColumn {
  return { name: VERSION_COLUMN, type: { kind: 'timestamp', precision: 3, ltz: true, nullable: false }, metadataFrom: clock.meta };
}

/** Decoder lines of the version column `c<i>`: the commit time in whole ms, SINCE_EVER without one. */
export function versionDecodeLines(clock: VersionClock, i: number): string[] {
  return [`  v = rt.meta(o, ${jsString(clock.meta)});`, `  const c${i} = typeof v === 'number' ? Math.floor(v) : ${SINCE_EVER};`];
}

export type ScopeOver = (inputs: IrColumn[][], rowVars: string[], temps: string[]) => ExprScope;
export type FnWithTemps = (sig: string, temps: string[], body: string) => string;


/** Key functions (NULL in any key part = no key), residual and output row of a temporal join. */
export function temporalJoinFunctions(
  o: TemporalJoinOp,
  id: string,
  L: IrColumn[],
  R: IrColumn[],
  rightTime: string | null,
  scopeOver: ScopeOver,
  fnWithTemps: FnWithTemps,
): string[] {
  const out: string[] = [`// ${jsComment(o.id)}: temporal join (${o.joinType}) FOR SYSTEM_TIME AS OF ${jsComment(o.asOfColumn)}; version time ${jsComment(versionTimeName(rightTime, R))}`];
  const keyFn = (name: string, parts: string[], temps: string[]): string => {
    const body =
      parts.length === 1
        ? `return ${parts[0]};`
        : `const k = [${parts.join(', ')}];\n  return k.includes(null) ? null : rt.compositeKey(...k);`;
    return fnWithTemps(`${name}_${id}(r)`, temps, body);
  };
  // Left keys take the right key column's type, so equal values make equal Map keys.
  const lt: string[] = [];
  const lsc = scopeOver([L, L], ['r', 'r'], lt);
  const lparts = o.leftKeys.map((e: IrExpr, i) => {
    const rc = R[columnIndex(R, o.rightKeys[i]!)]!;
    return coerce(compileExpr(e, lsc), rc.type, lsc);
  });
  out.push(keyFn('lkey', lparts, lt));
  out.push(keyFn('rkey', o.rightKeys.map((k) => `r[${columnIndex(R, k)}]`), []));
  if (o.residual) {
    const temps: string[] = [];
    const sc = scopeOver([L, R], ['l', 'r'], temps);
    out.push(fnWithTemps(`resid_${id}(l, r)`, temps, `return ${compileExpr(o.residual, sc).code} === true;`));
  }
  const cells = o.outputMap.map((m) => {
    const i = columnIndex(m.input === 0 ? L : R, m.column);
    return m.input === 0 ? `l[${i}]` : `(r === null ? null : r[${i}])`;
  });
  out.push(`function join_${id}(l, r) {\n  return [${cells.join(', ')}];\n}`);
  return out;
}

function versionTimeName(rightTime: string | null, R: IrColumn[]): string {
  return rightTime === null ? `commit time (${R[columnIndex(R, VERSION_COLUMN)]?.metadataFrom ?? '?'})` : `right.${rightTime}`;
}

/** The operator, its push functions for both inputs, as lines of `instantiate`. */
export function temporalJoinInstance(o: TemporalJoinOp, id: string, L: IrColumn[], R: IrColumn[], rightTime: string | null): string[] {
  const rti = rightTime === null ? columnIndex(R, VERSION_COLUMN) : columnIndex(R, rightTime);
  return [
    `const op_${id} = b.temporalJoin({ id: ${jsString(o.id)}, joinType: ${jsString(o.joinType)}, leftKey: lkey_${id}, rightKey: rkey_${id}, ` +
      `leftTimeIndex: ${columnIndex(L, o.asOfColumn)}, rightTimeIndex: ${rti}, residual: ${o.residual ? `resid_${id}` : 'null'}, join: join_${id}, out: emit_${id}` +
      `${o.stateBound.kind === 'ttl' ? `, stateTtlMs: ${o.stateBound.ttlMs}` : ''} });`,
    `function pushl_${id}(r) {\n  op_${id}.pushLeft(r);\n}`,
    `function pushr_${id}(r) {\n  op_${id}.pushRight(r);\n}`,
  ];
}
