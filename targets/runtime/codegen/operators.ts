// The operator table of the runtime code generator: for every IrOperator kind, its plain
// functions (predicates, projections, keys, accumulators, emitted with the decoders), its
// instance in `instantiate` with its graph entry, and the push function each input feeds.
// One exhaustive table: a new operator kind fails to type-check until it has all three, and
// the names one part defines (`pred_`, `agg_`, `lkey_`...) are used next to where they are made.
import type { IrColumn, IrOperator, IrOperatorKind, IrSource } from '../../../src/plan/ir.ts';
import { normalizeUid } from '../../../src/plan/state-fingerprints.ts';
import { compileExpr, coerce } from './expr.ts';
import { aggFnsCode } from './aggregates.ts';
import { sessionPartitionFn } from './session.ts';
import { jsComment as cm, jsString as q } from './js-text.ts';
import { temporalJoinFunctions, temporalJoinInstance, type FnWithTemps, type ScopeOver } from './temporal-join.ts';
import { columnIndex } from '../../../src/plan/graph.ts';

export interface OperatorContext {
  /** The operator's identifier part (js-text.ts `jsNames`, collision-free). */
  id: string;
  /** Output row layout of an operator. */
  layout: (id: string) => IrColumn[];
  op: (id: string) => IrOperator;
  scopeOver: ScopeOver;
  fnWithTemps: FnWithTemps;
  /** Source ids whose rows pass a changelog normalize first. */
  normalized: Set<string>;
  srcById: Map<string, IrSource>;
  /** A GROUP BY emits '-U' before '+U' (physical plan `updateBefore`). */
  updateBefore: (o: IrOperator) => boolean;
  /** The lowering's pane size of a window operator. */
  paneOf: (o: IrOperator) => number;
}

interface OperatorCode<O extends IrOperator> {
  /** The operator's plain functions, emitted before `instantiate` (empty: none). */
  functions(o: O, cx: OperatorContext): string[];
  /** Lines of `instantiate` (its push functions, its runtime node), and its graph entry. */
  instance(o: O, cx: OperatorContext): { lines: string[]; graph: string | null };
  /** The push function input `k` calls (two-input operators have one per side). */
  push(k: number, id: string): string;
}


const inputsOf = (o: IrOperator): string => `[${o.inputs.map(q).join(', ')}]`;
const plainEntry = (o: IrOperator): string => `{ id: ${q(o.id)}, inputs: ${inputsOf(o)} }`;
const nodeEntry = (o: IrOperator, id: string): string => `{ id: ${q(o.id)}, inputs: ${inputsOf(o)}, node: op_${id} }`;
const onePush = (_k: number, id: string): string => `push_${id}`;
const sidePush = (k: number, id: string): string => `${k === 0 ? 'pushl' : 'pushr'}_${id}`;

type Aggregate = Extract<IrOperator, { op: 'window_agg' | 'group_agg' }>;

/** Key extraction and accumulators of a window or GROUP BY aggregate (aggregates.ts). */
function aggregateFunctions(o: Aggregate, cx: OperatorContext): string[] {
  const inCols = cx.layout(o.inputs[0]!);
  const code = aggFnsCode(
    {
      groupKeys: o.groupKeys,
      aggregates: o.aggregates,
      windowColumns: o.op === 'window_agg' ? o.windowColumns : [],
      scope: (temps) => cx.scopeOver([inCols], ['r'], temps),
      retract: cx.op(o.inputs[0]!).changelog !== 'append',
    },
    '',
  );
  const what = o.op === 'window_agg' ? `${o.window.kind} window aggregate` : 'GROUP BY aggregate';
  const out = ['', `// ${cm(o.id)}: ${what}: keys ${cm(o.groupKeys.map((k) => k.name).join(', ')) || '(none)'}; ${cm(o.aggregates.map((a) => `${a.name} = ${a.fn}`).join(', '))}`];
  out.push(`const agg_${cx.id} = ${code};`);
  const part = o.op === 'window_agg' ? sessionPartitionFn(o, inCols, `part_${cx.id}`) : null;
  if (part !== null) out.push(part);
  return out;
}

/** A projection that keeps every input column, in order, unchanged: its rows are its input rows. */
const IDENTITY = Symbol('identity projection');

/**
 * The code of each projected column (and the temporaries it uses), or IDENTITY when column i
 * is input column i for every i: then a row passes on as it is (filters already pass rows on
 * so; no operator changes a row it receives), saving an array per row, which after a window
 * (SELECT the group keys, window_start, window_end, the aggregates) is the usual case.
 */
function projectionCode(o: Extract<IrOperator, { op: 'project' }>, cx: OperatorContext): { code: string[]; temps: string[] } | typeof IDENTITY {
  const temps: string[] = [];
  const inCols = cx.layout(o.inputs[0]!);
  const sc = cx.scopeOver([inCols], ['r'], temps);
  const code = o.exprs.map((x, i) => {
    const c = compileExpr(x.expr, sc);
    return coerce(c, o.schema[i]?.type ?? c.type, sc);
  });
  const identity = code.length === inCols.length && temps.length === 0 && code.every((c, i) => c === `r[${i}]`);
  return identity ? IDENTITY : { code, temps };
}

const OPERATORS: { [K in IrOperatorKind]: OperatorCode<Extract<IrOperator, { op: K }>> } = {
  scan: {
    functions: () => [],
    instance(o, cx) {
      const lines: string[] = [];
      if (cx.normalized.has(o.source)) {
        // Changelog normalize between the source and the scan's consumers (state: last row per key).
        const cols = cx.layout(o.id);
        const keys = cx.srcById.get(o.source)!.primaryKey!.map((k) => `r[${columnIndex(cols, k)}]`);
        lines.push(`function nkey_${cx.id}(r) {\n  return ${keys.length === 1 ? keys[0] : `rt.compositeKey(${keys.join(', ')})`};\n}`);
        lines.push(`const norm_${cx.id} = b.normalize({ id: ${q(normalizeUid(o.id))}, keyOf: nkey_${cx.id}, out: emit_${cx.id} });`);
      }
      return { lines, graph: `{ id: ${q(o.id)}, inputs: [], source: ${q(o.source)} }` };
    },
    push: onePush,
  },
  filter: {
    functions(o, cx) {
      const temps: string[] = [];
      const sc = cx.scopeOver([cx.layout(o.inputs[0]!)], ['r'], temps);
      const c = compileExpr(o.predicate, sc);
      return ['', `// ${cm(o.id)}: filter`, cx.fnWithTemps(`pred_${cx.id}(r)`, temps, `return ${c.code};`)];
    },
    instance: (o, cx) => ({ lines: [`function push_${cx.id}(r) {\n  if (pred_${cx.id}(r) === true) emit_${cx.id}(r);\n}`], graph: plainEntry(o) }),
    push: onePush,
  },
  project: {
    functions(o, cx) {
      const exprs = projectionCode(o, cx);
      const head = `// ${cm(o.id)}: project ${cm(o.exprs.map((x) => x.name).join(', '))}`;
      if (exprs === IDENTITY) return ['', `${head} (every input column in order: rows pass as they are)`];
      return ['', head, cx.fnWithTemps(`proj_${cx.id}(r)`, exprs.temps, `return [${exprs.code.join(', ')}];`)];
    },
    // A changelog row's kind rides on the new row (append streams skip the copy).
    instance: (o, cx) => {
      const row = projectionCode(o, cx) === IDENTITY ? 'r' : o.changelog === 'append' ? `proj_${cx.id}(r)` : `rt.withKindOf(proj_${cx.id}(r), r)`;
      return { lines: [`function push_${cx.id}(r) {\n  emit_${cx.id}(${row});\n}`], graph: plainEntry(o) };
    },
    push: onePush,
  },
  union: {
    functions: () => [],
    instance: (o, cx) => ({ lines: [`function push_${cx.id}(r) {\n  emit_${cx.id}(r);\n}`], graph: plainEntry(o) }),
    push: onePush,
  },
  window_agg: {
    functions: aggregateFunctions,
    instance(o, cx) {
      const id = cx.id;
      const inCols = cx.layout(o.inputs[0]!);
      const ti = inCols.findIndex((c) => c.name === o.windowTimeColumn);
      const w = o.window;
      const common = `id: ${q(o.id)}, allowedLatenessMs: ${o.allowedLatenessMs}, emit: ${q(o.emit)}, timeIndex: ${ti}, fns: agg_${id}, out: emit_${id}`;
      const lines: string[] = [];
      if (w.kind === 'session') {
        const part = sessionPartitionFn(o, inCols, `part_${id}`) !== null ? `, partitionOf: part_${id}` : '';
        lines.push(`const op_${id} = b.sessionAgg({ ${common}, gapMs: ${w.gapMs}${part} });`);
      } else {
        const shape =
          w.kind === 'tumble'
            ? `{ kind: 'tumble', sizeMs: ${w.sizeMs}, offsetMs: ${w.offsetMs} }`
            : w.kind === 'hop'
              ? `{ kind: 'hop', slideMs: ${w.slideMs}, sizeMs: ${w.sizeMs} }`
              : `{ kind: 'cumulate', stepMs: ${w.stepMs}, sizeMs: ${w.sizeMs} }`;
        lines.push(`const op_${id} = b.windowAgg({ ${common}, shape: ${shape}, paneMs: ${cx.paneOf(o)} });`);
      }
      lines.push(`function push_${id}(r) {\n  op_${id}.push(r);\n}`);
      return { lines, graph: nodeEntry(o, id) };
    },
    push: onePush,
  },
  group_agg: {
    functions: aggregateFunctions,
    instance: (o, cx) => ({
      lines: [
        `const op_${cx.id} = b.groupAgg({ id: ${q(o.id)}, stateTtlMs: ${o.stateTtlMs ?? 'null'}, fns: agg_${cx.id}, out: emit_${cx.id}${cx.updateBefore(o) ? ', updateBefore: true' : ''} });`,
        `function push_${cx.id}(r) {\n  op_${cx.id}.push(r);\n}`,
      ],
      graph: nodeEntry(o, cx.id),
    }),
    push: onePush,
  },
  interval_join: {
    functions(o, cx) {
      const id = cx.id;
      const L = cx.layout(o.inputs[0]!);
      const R = cx.layout(o.inputs[1]!);
      // Key expressions reference their own side's input number; give each side its own layout.
      const keyFn = (side: 0 | 1): string => {
        const temps: string[] = [];
        const cols = side === 0 ? L : R;
        const sc = cx.scopeOver([cols, cols], ['r', 'r'], temps);
        const exprs = (side === 0 ? o.leftKeys : o.rightKeys).map((e) => compileExpr(e, sc).code);
        const body = exprs.length === 1 ? `return ${exprs[0]};` : `return rt.compositeKey(${exprs.join(', ')});`;
        return cx.fnWithTemps(`${side === 0 ? 'lkey' : 'rkey'}_${id}(r)`, temps, body);
      };
      const out = ['', `// ${cm(o.id)}: interval join (${o.joinType}), ${cm(o.leftTime)} - ${cm(o.rightTime)} in [${o.lowerMs}, ${o.upperMs}] ms`];
      out.push(keyFn(0), keyFn(1));
      if (o.residual) {
        const temps: string[] = [];
        const sc = cx.scopeOver([L, R], ['l', 'r'], temps);
        out.push(cx.fnWithTemps(`resid_${id}(l, r)`, temps, `return ${compileExpr(o.residual, sc).code} === true;`));
      }
      const cells = o.outputMap.map((m) => {
        const cols = m.input === 0 ? L : R;
        const i = columnIndex(cols, m.column);
        return m.input === 0 ? `l[${i}]` : `(r === null ? null : r[${i}])`;
      });
      out.push(`function join_${id}(l, r) {\n  return [${cells.join(', ')}];\n}`);
      // A late row, in the shape its ON LATE TO sink receives: the join's columns, the other side's NULL, then the side.
      for (const side of [0, 1] as const) {
        const lateCells = o.outputMap.map((m) => (m.input === side ? `x[${columnIndex(side === 0 ? L : R, m.column)}]` : 'null'));
        out.push(`function late${side === 0 ? 'l' : 'r'}_${id}(x) {\n  return [${[...lateCells, q(side === 0 ? 'left' : 'right')].join(', ')}];\n}`);
      }
      return out;
    },
    instance(o, cx) {
      const id = cx.id;
      const lc = cx.layout(o.inputs[0]!);
      const rc = cx.layout(o.inputs[1]!);
      const lines = [
        `const op_${id} = b.intervalJoin({ id: ${q(o.id)}, joinType: ${q(o.joinType)}, leftKey: lkey_${id}, rightKey: rkey_${id}, ` +
          `leftTimeIndex: ${lc.findIndex((c) => c.name === o.leftTime)}, rightTimeIndex: ${rc.findIndex((c) => c.name === o.rightTime)}, ` +
          `lowerMs: ${o.lowerMs}, upperMs: ${o.upperMs}, residual: ${o.residual ? `resid_${id}` : 'null'}, join: join_${id}, out: emit_${id}, ` +
          `allowedLatenessMs: ${o.allowedLatenessMs}, lateLeft: latel_${id}, lateRight: later_${id} });`,
        `function pushl_${id}(r) {\n  op_${id}.pushLeft(r);\n}`,
        `function pushr_${id}(r) {\n  op_${id}.pushRight(r);\n}`,
      ];
      return { lines, graph: nodeEntry(o, id) };
    },
    push: sidePush,
  },
  temporal_join: {
    functions: (o, cx) => ['', ...temporalJoinFunctions(o, cx.id, cx.layout(o.inputs[0]!), cx.layout(o.inputs[1]!), cx.op(o.inputs[1]!).timeColumn, cx.scopeOver, cx.fnWithTemps)],
    instance: (o, cx) => ({ lines: temporalJoinInstance(o, cx.id, cx.layout(o.inputs[0]!), cx.layout(o.inputs[1]!), cx.op(o.inputs[1]!).timeColumn), graph: nodeEntry(o, cx.id) }),
    push: sidePush,
  },
};

/** The table entry of an operator (the lookup TypeScript cannot narrow by itself). */
export function operatorCode<O extends IrOperator>(o: O): OperatorCode<O> {
  return OPERATORS[o.op] as unknown as OperatorCode<O>;
}
