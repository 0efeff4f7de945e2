// CREATE CATALOG (sql | rest | filesystem with their options) and CREATE COMPACTION POLICY
// (target is an Iceberg sink; sizes in bytes, ages and schedules in ms).
import type { CreateCatalogStmt, CreateCompactionStmt, IntervalLit, SizeLit } from '../syntax/ast.ts';
import type { IrCatalog, IrCompaction, IrCompactionAction, IrSink } from '../plan/ir.ts';
import { suggest } from '../util/suggest.ts';
import { assertNever } from '../util/assert-never.ts';
import type { Checker } from './checker.ts';
import { checkOptions } from './options.ts';
import { CATALOG_OPTIONS, CATALOG_TYPES } from './option-tables.ts';
import { isCalendarInterval, parseSize } from './units.ts';

export function checkCatalog(ck: Checker, c: CreateCatalogStmt): IrCatalog | null {
  const name = c.name.name;
  const typeEntry = c.options.find((o) => o.key === 'type');
  if (!typeEntry) {
    ck.bag.report('missing-option', c.name.span, { key: 'type', owner: `catalog '${name}'` });
    return null;
  }
  const type = typeEntry.value.text.trim().toLowerCase() as IrCatalog['type'];
  if (!(CATALOG_TYPES as readonly string[]).includes(type)) {
    ck.bag.report('invalid-option-value', typeEntry.value.span, { key: 'type', value: typeEntry.value.text, expected: "one of 'sql', 'rest', 'filesystem'" });
    return null;
  }
  const opts = checkOptions(c.options, CATALOG_OPTIONS[type], `${type} catalog '${name}'`, c.name.span, ck.bag);
  return { name, type, options: opts.ir, span: c.span };
}

export function checkCompaction(ck: Checker, p: CreateCompactionStmt, sinks: Map<string, IrSink>): IrCompaction | null {
  const bag = ck.bag;
  const target = ck.lookup(p.target);
  let ok = true;
  if (!target) {
    bag.report('compaction-target', p.target.span, { name: p.target.name, detail: `is not declared${suggestion(p.target.name, ck.namesOf('sink'))}` });
    ok = false;
  } else if (target.kind !== 'sink') {
    bag.report('compaction-target', p.target.span, { name: target.name, detail: `is a ${target.kind}, not an Iceberg sink` });
    ok = false;
  } else {
    const sink = sinks.get(target.name);
    if (sink && sink.connector !== 'iceberg') {
      bag.report('compaction-target', p.target.span, { name: target.name, detail: `is a ${sink.connector} sink, not an Iceberg sink` });
      ok = false;
    }
  }
  const size = (s: SizeLit | null, what: string): number | null => {
    if (!s) return null;
    const b = parseSize(s.text);
    if (b === null || b === 0) {
      bag.report('compaction-value-invalid', s.span, { what, detail: `'${s.text}' is not a positive size such as '32 MB' or '1 GiB'` });
      ok = false;
      return null;
    }
    return b;
  };
  const age = (iv: IntervalLit, what: string): number => {
    if (isCalendarInterval(iv)) {
      bag.report('calendar-interval', iv.span, { text: iv.text });
      ok = false;
    } else if (iv.ms <= 0) {
      bag.report('compaction-value-invalid', iv.span, { what, detail: 'must be a positive interval' });
      ok = false;
    }
    return iv.ms;
  };
  const count = (n: number | null, what: string, span: IntervalLit['span']): number | null => {
    if (n !== null && (!Number.isInteger(n) || n < 1)) {
      bag.report('compaction-value-invalid', span, { what, detail: `${n} is not a positive integer` });
      ok = false;
    }
    return n;
  };
  const actions: IrCompactionAction[] = [];
  for (const a of p.actions) {
    switch (a.kind) {
      case 'rewrite_data_files':
        actions.push({
          kind: a.kind,
          fileSizeBelowBytes: size(a.fileSizeBelow, 'REWRITE DATA FILES WHERE file_size'),
          targetBytes: size(a.target, 'REWRITE DATA FILES TARGET'),
          minInputFiles: count(a.minInputFiles, 'MIN INPUT FILES', a.span),
        });
        break;
      case 'rewrite_delete_files':
        if (!(a.deleteRatioAbove >= 0 && a.deleteRatioAbove < 1)) {
          bag.report('compaction-value-invalid', a.span, { what: 'delete_ratio', detail: `${a.deleteRatioAbove} is not a fraction between 0 and 1 (or 0 and 100 PERCENT)` });
          ok = false;
        }
        actions.push({ kind: a.kind, deleteRatioAbove: a.deleteRatioAbove });
        break;
      case 'expire_snapshots':
        actions.push({ kind: a.kind, olderThanMs: age(a.olderThan, 'EXPIRE SNAPSHOTS OLDER THAN'), retainLast: count(a.retainLast, 'RETAIN LAST', a.span) });
        break;
      case 'remove_orphan_files':
        actions.push({ kind: a.kind, olderThanMs: age(a.olderThan, 'REMOVE ORPHAN FILES OLDER THAN') });
        break;
      default:
        assertNever(a);
    }
  }
  const scheduleMs = p.schedule ? age(p.schedule, 'SCHEDULE EVERY') : null;
  if (!ok) return null;
  return { name: p.name.name, sink: target!.name, actions, scheduleMs, span: p.span };
}

function suggestion(name: string, names: string[]): string {
  const s = suggest(name, names);
  return s ? ` (did you mean '${s}'?)` : '';
}
