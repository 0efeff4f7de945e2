// CREATE VIEW: options (state_ttl), the query's operators, and the view-level streaming rules
// (EMIT, ALLOWED LATENESS and ON LATE only where they mean something).
import type { CreateViewStmt, OnLate } from '../syntax/ast.ts';
import type { LateHandling } from '../plan/ir.ts';
import { suggest } from '../util/suggest.ts';
import type { Checker } from './checker.ts';
import { checkOptions } from './options.ts';
import { VIEW_OPTIONS } from './option-tables.ts';
import { planQuery } from './select.ts';
import { isCalendarInterval } from './units.ts';
import type { OwnerSettings } from './aggregates.ts';

/** Resolves `ON LATE TO x` / `ON LATE DROP`; the target must be a sink. */
export function lateHandling(ck: Checker, onLate: OnLate | null): LateHandling {
  if (!onLate) return { kind: 'unspecified' };
  if (onLate.kind === 'drop') return { kind: 'drop' };
  const t = ck.lookup(onLate.target);
  if (!t) {
    ck.bag.report('unknown-relation', onLate.target.span, { name: onLate.target.name, suggestion: suggest(onLate.target.name, ck.namesOf('sink')) });
    return { kind: 'unspecified' };
  }
  if (t.kind !== 'sink') {
    // A view has a query of its own and cannot also receive rows; v0 routes late rows to sinks only.
    ck.bag.report('wrong-relation-kind', onLate.target.span, { name: t.name, kind: t.kind, expected: 'sink' });
    return { kind: 'unspecified' };
  }
  if (t.stmt.kind === 'sink' && (t.stmt.from || t.stmt.query)) {
    ck.bag.report('late-sink-has-input', onLate.target.span, { name: t.name });
    return { kind: 'unspecified' };
  }
  return { kind: 'to', sink: t.name };
}

export function checkView(ck: Checker, v: CreateViewStmt): void {
  const name = v.name.name;
  const opts = checkOptions(v.options, VIEW_OPTIONS, `view '${name}'`, v.name.span, ck.bag);
  let lateness = 0;
  if (v.allowedLateness) {
    if (isCalendarInterval(v.allowedLateness)) ck.bag.report('calendar-interval', v.allowedLateness.span, { text: v.allowedLateness.text });
    else if (v.allowedLateness.ms < 0) ck.bag.report('window-arg-invalid', v.allowedLateness.span, { what: 'allowed lateness', detail: 'must not be negative' });
    else lateness = v.allowedLateness.ms;
  }
  const owner: OwnerSettings = {
    kind: 'view',
    name,
    span: v.span,
    emit: v.emit?.mode ?? null,
    allowedLatenessMs: lateness,
    late: lateHandling(ck, v.onLate),
    stateTtlMs: opts.number('state_ttl') ?? null,
  };
  const mark = ck.mark();
  const planned = planQuery(ck, v.query, name, owner);
  if (!planned) {
    ck.rollback(mark);
    ck.failedViews.add(name);
    return;
  }
  ck.viewStreams.set(name, { ...planned.stream, label: name });
  const shapes = planned.shapes;
  const windowed = shapes.includes('window_agg');
  // An interval join drops rows behind the watermark too, so it takes ALLOWED LATENESS and ON LATE.
  const joined = ck.operators.slice(mark).some((o) => o.op === 'interval_join');
  if (v.emit?.mode === 'on_window_close' && !windowed) ck.bag.report('emit-not-applicable', v.emit.span, { mode: 'EMIT ON WINDOW CLOSE' });
  if (v.emit?.mode === 'changes' && shapes.every((s) => s === 'plain')) ck.bag.report('emit-not-applicable', v.emit.span, { mode: 'EMIT CHANGES' });
  if (!windowed && !joined) {
    if (v.allowedLateness) ck.bag.report('lateness-not-applicable', v.allowedLateness.span, { clause: 'ALLOWED LATENESS' });
    if (v.onLate) ck.bag.report('lateness-not-applicable', v.onLate.span, { clause: v.onLate.kind === 'drop' ? 'ON LATE DROP' : 'ON LATE TO' });
  }
}
