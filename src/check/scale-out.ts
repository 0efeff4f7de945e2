// The compile-time side of `scale_out = 'partitions'` (docs/scale-out.md). The runtime then
// runs each Kafka partition of the source as a task with its own operator state and watermark
// (Kafka Streams' task model), which is correct only when every record a stateful operator
// combines comes from one partition. This pass reads the finished plan and refuses what
// task-scoped state cannot run: another source than exactly one Kafka source, joins, and
// aggregations or changelogs whose key does not determine the Kafka message key. pipec does
// not insert a repartition topic (DESIGN.md "Scaling out" names it as a later step).
import type { Label } from '../diagnostics/diagnostic.ts';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { Span } from '../diagnostics/span.ts';
import type { CreateSourceStmt } from '../syntax/ast.ts';
import type { GroupAggOp, IrSource, PlanDoc, WindowAggOp } from '../plan/ir.ts';
import { PlanIndex, scaleOutOf } from '../plan/plan-index.ts';

export interface ScaleOutInput {
  plan: PlanDoc;
  bag: DiagnosticBag;
  /** The CREATE SOURCE statements by name, for spans on single options (the IR has none). */
  sourceStmts: Map<string, CreateSourceStmt>;
  /** Where `scale_out = 'partitions'` is written: every error points back at it. */
  optionSpan: Span;
}

export function checkScaleOut(input: ScaleOutInput): void {
  const { plan, bag, sourceStmts } = input;
  if (scaleOutOf(plan) !== 'partitions') return;
  const index = new PlanIndex(plan);
  const labels: Label[] = [{ span: input.optionSpan, message: "scale_out = 'partitions' is set here" }];
  const optionSpan = (s: IrSource, key: string): Span => {
    const st = sourceStmts.get(s.name);
    return st?.options.find((o) => o.key === key)?.value.span ?? st?.name.span ?? s.span;
  };

  // ---- exactly one source, and it is Kafka (only sources some operator reads are run)
  const read = index.upstreamSources(plan.operators.map((o) => o.id));
  read.forEach((s, i) => {
    const detail: string[] = [];
    if (s.connector !== 'kafka') detail.push(`is a ${s.connector} source, which has no Kafka partitions to share`);
    if (i > 0) detail.push(`is a second source (the pipeline also reads '${read[0]!.name}'; state of several sources is not partition-scoped yet)`);
    if (!detail.length) return;
    const span = s.connector !== 'kafka' ? optionSpan(s, 'connector') : (sourceStmts.get(s.name)?.name.span ?? s.span);
    bag.report('scale-out-source', span, { name: s.name, detail: detail.join(' and ') }, { labels });
  });

  // ---- joins combine rows of two inputs: refused whatever their keys
  for (const o of plan.operators) {
    if (o.op === 'interval_join' || o.op === 'temporal_join') {
      bag.report('scale-out-join', o.span, { owner: index.owner(o.id), kind: o.op === 'interval_join' ? 'an interval join' : 'a temporal join' }, { labels });
    }
  }

  // ---- changelogs: the normalize's state is keyed by the primary key
  for (const s of read) {
    if (s.connector !== 'kafka' || s.changelog !== 'changelog') continue;
    const pk = s.primaryKey ?? [];
    const mk = s.messageKey ?? [];
    const declare = pk.length ? `key the topic by its primary key where it is produced (Debezium does) and declare key = '${pk.join(', ')}'` : "declare the table's PRIMARY KEY (...) NOT ENFORCED and key = '<the same columns>'";
    let detail: string | null = null;
    if (!pk.length) detail = 'has no PRIMARY KEY';
    else if (!mk.length) detail = `declares no message key (primary key (${pk.join(', ')}))`;
    else if (!mk.every((k) => pk.includes(k))) detail = `is keyed by (${mk.join(', ')}) but its primary key is (${pk.join(', ')})`;
    if (detail) bag.report('scale-out-changelog-key', s.messageKey ? optionSpan(s, 'key') : (sourceStmts.get(s.name)?.name.span ?? s.span), { name: s.name, detail, fix: declare }, { labels });
  }

  // ---- aggregations: every message-key column must be among the state's key columns
  for (const o of plan.operators) {
    if (o.op !== 'window_agg' && o.op !== 'group_agg') continue;
    const upstream = index.upstreamSources([o.id]);
    // Reported above already: several sources, another connector, a join on the way.
    if (upstream.length !== 1 || upstream[0]!.connector !== 'kafka' || hasJoinUpstream(index, o.id)) continue;
    checkAggregateKey(index, bag, o, upstream[0]!, labels);
  }
}

function hasJoinUpstream(index: PlanIndex, opId: string): boolean {
  const seen = new Set<string>();
  const stack = [opId];
  while (stack.length) {
    const o = index.op(stack.pop()!);
    if (!o || seen.has(o.id)) continue;
    seen.add(o.id);
    if (o.op === 'interval_join' || o.op === 'temporal_join') return true;
    stack.push(...o.inputs);
  }
  return false;
}

function checkAggregateKey(index: PlanIndex, bag: DiagnosticBag, o: WindowAggOp | GroupAggOp, source: IrSource, labels: Label[]): void {
  // A SESSION's PARTITION BY decides which records share a session; other aggregates keep state per group key.
  const session = o.op === 'window_agg' && o.window.kind === 'session' ? o.window : null;
  const keyNames = session ? session.partitionBy : o.groupKeys.map((g) => g.name);
  const traced = session
    ? session.partitionBy.map((p) => index.traceColumn(o.inputs[0]!, p, true))
    : o.groupKeys.map((g) => (g.expr.kind === 'col' ? index.traceColumn(o.inputs[0]!, g.expr.name, true) : null));
  const covered = new Set(traced.filter((t) => t && t.source === source).map((t) => t!.column.name));
  const mk = source.messageKey ?? [];
  // Records of one group share a partition exactly when the message key is a function of the key.
  if (mk.length && mk.every((k) => covered.has(k))) return;

  const list = `(${keyNames.join(', ')})`;
  const keyedBy = session
    ? keyNames.length
      ? `splits sessions by PARTITION BY ${list}`
      : 'keeps one SESSION for all records (no PARTITION BY)'
    : keyNames.length
      ? `groups by ${list}`
      : 'aggregates without grouping keys';
  const sourceCols = traced.every((t) => t && t.source === source) ? traced.map((t) => t!.column.name) : null;
  const declare = sourceCols && sourceCols.length ? `key = '${sourceCols.join(', ')}'` : "a key option naming those columns";
  const missing = mk.filter((k) => !covered.has(k));
  let fix: string;
  if (!keyNames.length) fix = session ? `add PARTITION BY (and GROUP BY) the message key columns, or remove scale_out` : 'group by the message key columns (a global aggregate spans every partition), or remove scale_out';
  else if (!mk.length) fix = `produce topic of source '${source.name}' keyed by the ${session ? 'PARTITION BY' : 'grouping'} columns and declare it with ${declare}`;
  else fix = `produce the topic keyed by the ${session ? 'PARTITION BY' : 'grouping'} columns and declare ${declare} on source '${source.name}', or ${session ? 'partition sessions' : 'group'} by ${missing.join(', ')} as well`;
  bag.report(
    'scale-out-key-not-message-key',
    o.span,
    {
      owner: index.owner(o.id),
      keyedBy,
      source: source.name,
      messageKey: mk.length ? `(${mk.join(', ')})` : 'nothing (no key option)',
      fix,
    },
    { labels },
  );
}
