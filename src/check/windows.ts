// Window table functions (TUMBLE, HOP, CUMULATE, SESSION): the time column must be the input's
// event-time column, sizes are positive fixed-length intervals with Flink's divisibility rules.
import type { Expr, WindowTvf } from '../syntax/ast.ts';
import type { IrWindow } from '../plan/ir.ts';
import { T, type SqlType } from '../types/sql-type.ts';
import type { Checker, Stream } from './checker.ts';
import { findColumn, type ScopeColumn } from './scope.ts';
import { suggest } from '../util/suggest.ts';
import { formatMs, isCalendarInterval } from './units.ts';

export interface WindowInfo {
  ir: IrWindow;
  /** The input column windows are assigned on (the input's event-time column). */
  timeColumn: string;
  /** window_start/window_end/window_time type: TIMESTAMP(3), LTZ when the time column is. */
  columnType: SqlType;
  /** How long a window's state lives before lateness: the size (HOP/CUMULATE/TUMBLE) or the gap (SESSION). */
  spanMs: number;
}

/** Checks the TVF against its input stream; null (after reporting) when it is unusable. */
export function checkWindow(ck: Checker, w: WindowTvf, input: Stream): WindowInfo | null {
  const bag = ck.bag;
  const cols = input.op.schema;
  const tc = findColumn(cols, w.timeColumn);
  let ok = true;
  if (!tc) {
    bag.report('unknown-column', w.timeColumn.span, { name: w.timeColumn.name, where: `'${input.label}'`, suggestion: suggest(w.timeColumn.name, cols.map((c) => c.name)) });
    ok = false;
  } else if (tc.name !== input.op.timeColumn) {
    if (!input.timeInError) bag.report('window-time-not-rowtime', w.timeColumn.span, { column: tc.name, relation: input.label, rowtime: input.op.timeColumn });
    ok = false;
  }
  if (input.op.changelog !== 'append') {
    bag.report('window-on-changelog', w.input.span, { relation: input.label });
    ok = false;
  }
  const partitionBy: string[] = [];
  for (const p of w.partitionBy) {
    const c = findColumn(cols, p);
    if (!c) {
      bag.report('unknown-column', p.span, { name: p.name, where: `'${input.label}'`, suggestion: suggest(p.name, cols.map((x) => x.name)) });
      ok = false;
    } else partitionBy.push(c.name);
  }
  const names: Record<WindowTvf['fn'], string[]> = {
    tumble: ['size', 'offset'],
    hop: ['slide', 'size'],
    cumulate: ['step', 'size'],
    session: ['gap'],
  };
  const expected = names[w.fn];
  const required = w.fn === 'tumble' ? 1 : expected.length;
  if (w.args.length < required || w.args.length > expected.length) {
    bag.report('wrong-arity', w.span, {
      name: w.fn,
      expected: `a relation, a time column and ${required === expected.length ? expected.join(' and ') : `${expected[0]} [and ${expected[1]}]`}`,
      actual: w.args.length + 2,
    });
    return null;
  }
  const ms: number[] = [];
  for (let i = 0; i < w.args.length; i++) {
    const v = intervalArg(ck, w.args[i]!, `${w.fn.toUpperCase()} ${expected[i]}`, expected[i] !== 'offset');
    if (v === null) ok = false;
    ms.push(v ?? 0);
  }
  if (!ok) return null;
  let ir: IrWindow;
  let spanMs: number;
  const multiple = (size: number, part: number, what: string, span: Expr['span']): boolean => {
    if (size % part === 0) return true;
    bag.report('window-arg-invalid', span, { what: `size ${formatMs(size)}`, detail: `must be a multiple of the ${what} (${formatMs(part)}), as Flink requires` });
    return false;
  };
  switch (w.fn) {
    case 'tumble': {
      const [size, offset = 0] = ms as [number, number?];
      if (Math.abs(offset) >= size) {
        bag.report('window-arg-invalid', w.args[1]!.span, { what: `offset ${formatMs(offset)}`, detail: `must be smaller than the size (${formatMs(size)})` });
        return null;
      }
      ir = { kind: 'tumble', sizeMs: size, offsetMs: offset };
      spanMs = size;
      break;
    }
    case 'hop': {
      const [slide, size] = ms as [number, number];
      if (!multiple(size, slide, 'slide', w.args[1]!.span)) return null;
      ir = { kind: 'hop', slideMs: slide, sizeMs: size };
      spanMs = size;
      break;
    }
    case 'cumulate': {
      const [step, size] = ms as [number, number];
      if (!multiple(size, step, 'step', w.args[1]!.span)) return null;
      ir = { kind: 'cumulate', stepMs: step, sizeMs: size };
      spanMs = size;
      break;
    }
    case 'session':
      ir = { kind: 'session', gapMs: ms[0]!, partitionBy };
      spanMs = ms[0]!;
      break;
  }
  const ltz = tc!.type.kind === 'timestamp' && tc!.type.ltz;
  return { ir, timeColumn: tc!.name, columnType: ltz ? T.timestampLtz(3, false) : T.timestamp(3, false), spanMs };
}

/** A fixed-length INTERVAL literal in ms; `positive` rejects zero and negative lengths. */
export function intervalArg(ck: Checker, e: Expr, what: string, positive: boolean): number | null {
  let x = e;
  let sign = 1;
  if (x.kind === 'unary' && x.op === '-') {
    sign = -1;
    x = x.operand;
  }
  if (x.kind !== 'interval') {
    ck.bag.report('window-arg-invalid', e.span, { what, detail: "must be an INTERVAL literal, e.g. INTERVAL '1' MINUTE" });
    return null;
  }
  if (isCalendarInterval(x)) {
    ck.bag.report('calendar-interval', x.span, { text: x.text + (x.unit ? ` ${x.unit.toUpperCase()}` : '') });
    return null;
  }
  const v = sign * x.ms;
  if (positive && v <= 0) {
    ck.bag.report('window-arg-invalid', e.span, { what, detail: 'must be positive' });
    return null;
  }
  return v;
}

/** The window columns a window TVF adds to its relation's scope. */
export function windowScopeColumns(info: WindowInfo): ScopeColumn[] {
  return (['window_start', 'window_end', 'window_time'] as const).map((name) => ({ name, type: info.columnType, input: 0, irName: name, window: name }));
}
