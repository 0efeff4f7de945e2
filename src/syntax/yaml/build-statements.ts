// `views:`, `sinks:`, `catalogs:` and `compaction_policies:` entries → their AST statements.
// SQL bodies (`query`) go to the SQL parser with a FragmentOrigin into the YAML file.
import { isMap, type Pair } from 'yaml';
import type {
  CompactionAction,
  CreateCatalogStmt,
  CreateCompactionStmt,
  CreateSinkStmt,
  CreateViewStmt,
  EmitMode,
  Ident,
  IntervalLit,
  OnLate,
  OptionEntry,
  SizeLit,
} from '../ast.ts';
import {
  durationOf,
  identOf,
  optionOf,
  qualifiedOf,
  scalarNode,
  sqlQueryOf,
  stringValue,
  type Builder,
} from './build-context.ts';
import { deref, describePlace, findPair, itemsOf, keyText, nodeSpan, pairSpan, pairsOf } from './yaml-nodes.ts';

export function buildView(b: Builder, pair: Pair<unknown, unknown>, name: Ident, place: string[]): CreateViewStmt | null {
  let query: CreateViewStmt['query'] | null = null;
  let emit: CreateViewStmt['emit'] = null;
  let allowedLateness: CreateViewStmt['allowedLateness'] = null;
  let onLate: OnLate | null = null;
  const options: OptionEntry[] = [];
  for (const p of pairsOf(b.env, pair.value)) {
    const key = keyText(p);
    switch (key) {
      case 'query':
        query = sqlQueryOf(b, p.value);
        break;
      case 'emit': {
        const v = stringValue(b, p.value);
        if (v === 'on_window_close' || v === 'changes') emit = { mode: v satisfies EmitMode, span: nodeSpan(b.env, p.value) };
        break;
      }
      case 'allowed_lateness':
        allowedLateness = durationOf(b, p.value, [...place, 'allowed_lateness']);
        break;
      case 'on_late':
        onLate = buildOnLate(b, p.value);
        break;
      default: {
        const o = optionOf(b, p, place);
        if (o) options.push(o);
      }
    }
  }
  // A view without a parsed query has no meaning to check; its errors are already reported.
  if (!query) return null;
  return { kind: 'view', name, query, emit, allowedLateness, onLate, options, span: pairSpan(b.env, pair) };
}

function buildOnLate(b: Builder, node: unknown): OnLate | null {
  const span = nodeSpan(b.env, node);
  if (stringValue(b, node) === 'drop') return { kind: 'drop', span };
  const to = findPair(b.env, node, 'to');
  const target = to && identOf(b, to.value, 'sink or view');
  return target ? { kind: 'to', target, span } : null;
}

export function buildSink(b: Builder, pair: Pair<unknown, unknown>, name: Ident, place: string[]): CreateSinkStmt | null {
  let from: CreateSinkStmt['from'] = null;
  let query: CreateSinkStmt['query'] = null;
  let broken = false;
  const options: OptionEntry[] = [];
  const fromPair = findPair(b.env, pair.value, 'from');
  const queryPair = findPair(b.env, pair.value, 'query');
  if (fromPair && queryPair) {
    b.ctx.diagnostics.report('yaml-conflicting-keys', nodeSpan(b.env, queryPair.key), { a: 'from', b: 'query', where: describePlace(place) });
  }
  for (const p of pairsOf(b.env, pair.value)) {
    const key = keyText(p);
    if (key === 'from') {
      from = qualifiedOf(b, p.value, 'view');
    } else if (key === 'query') {
      query = sqlQueryOf(b, p.value);
      if (!query) broken = true;
    } else {
      const o = optionOf(b, p, place);
      if (o) options.push(o);
    }
  }
  // Without its query the sink would read as a late-events-only sink; better no sink at all.
  if (broken) return null;
  return { kind: 'sink', name, from, query, options, span: pairSpan(b.env, pair) };
}

export function buildCatalog(b: Builder, pair: Pair<unknown, unknown>, name: Ident, place: string[]): CreateCatalogStmt {
  const options: OptionEntry[] = [];
  for (const p of pairsOf(b.env, pair.value)) {
    const o = optionOf(b, p, place);
    if (o) options.push(o);
  }
  return { kind: 'catalog', name, options, span: pairSpan(b.env, pair) };
}

export function buildCompaction(b: Builder, pair: Pair<unknown, unknown>, name: Ident, place: string[]): CreateCompactionStmt | null {
  const onPair = findPair(b.env, pair.value, 'on');
  const target = onPair && identOf(b, onPair.value, 'sink');
  const actionsPair = findPair(b.env, pair.value, 'actions');
  const actions: CompactionAction[] = [];
  itemsOf(b.env, actionsPair?.value).forEach((item, i) => {
    const a = buildAction(b, item, [...place, 'actions', String(i)]);
    if (a) actions.push(a);
  });
  const schedulePair = findPair(b.env, pair.value, 'schedule');
  const schedule = schedulePair ? durationOf(b, schedulePair.value, [...place, 'schedule']) : null;
  if (!target) return null;
  return { kind: 'compaction', name, target, actions, schedule, span: pairSpan(b.env, pair) };
}

function buildAction(b: Builder, item: unknown, place: string[]): CompactionAction | null {
  const n = deref(b.env, item);
  if (!isMap(n) || n.items.length !== 1) return null;
  const p = n.items[0]!;
  const body = p.value;
  // The pair's own text: a block mapping's range runs on over the comments after it, which belong to their items.
  const span = pairSpan(b.env, p);
  const num = (key: string): number | null => {
    const f = findPair(b.env, body, key);
    const v = f ? scalarNode(b, f.value)?.value : null;
    return typeof v === 'number' ? v : null;
  };
  const size = (key: string): SizeLit | null => {
    const f = findPair(b.env, body, key);
    const sc = f ? scalarNode(b, f.value) : null;
    if (!sc || (typeof sc.value !== 'string' && typeof sc.value !== 'number')) return null;
    return { text: String(sc.value).trim(), span: nodeSpan(b.env, sc) };
  };
  const older = (): IntervalLit | null => {
    const f = findPair(b.env, body, 'older_than');
    return f ? durationOf(b, f.value, [...place, keyText(p) ?? '', 'older_than']) : null;
  };
  switch (keyText(p)) {
    case 'rewrite_data_files':
      return { kind: 'rewrite_data_files', fileSizeBelow: size('file_size_below'), target: size('target'), minInputFiles: num('min_input_files'), span };
    case 'rewrite_delete_files': {
      const ratio = num('delete_ratio_above');
      return ratio === null ? null : { kind: 'rewrite_delete_files', deleteRatioAbove: ratio, span };
    }
    case 'expire_snapshots': {
      const olderThan = older();
      return olderThan ? { kind: 'expire_snapshots', olderThan, retainLast: num('retain_last'), span } : null;
    }
    case 'remove_orphan_files': {
      const olderThan = older();
      return olderThan ? { kind: 'remove_orphan_files', olderThan, span } : null;
    }
    default:
      return null;
  }
}
