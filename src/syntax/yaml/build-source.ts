// `sources:` entries → CreateSourceStmt: flattened connector options, `columns` (a mapping or a
// list), `watermark: {column, delay | expr}`, `primary_key`, and datagen `fields` expanded to
// the dotted options `fields.<col>.<opt>` the SQL form writes.
import { isMap, isSeq, type Pair, type Scalar } from 'yaml';
import type { ColumnDef, CreateSourceStmt, Expr, Ident, OptionEntry, WatermarkDef } from '../ast.ts';
import { T, withNullable, type SqlType } from '../../types/sql-type.ts';
import { parseTypeString } from './type-string.ts';
import { hasUnclosedBracket } from './suggest.ts';
import {
  durationOf,
  identOf,
  optionOf,
  scalarNode,
  sqlExprOf,
  stringValue,
  subSpanOf,
  type Builder,
} from './build-context.ts';
import { deref, describePlace, findPair, itemsOf, keyText, nodeSpan, pairSpan, pairsOf } from './yaml-nodes.ts';

export function buildSource(b: Builder, pair: Pair<unknown, unknown>, name: Ident, place: string[]): CreateSourceStmt {
  let columns: ColumnDef[] | null = null;
  let watermark: WatermarkDef | null = null;
  let primaryKey: CreateSourceStmt['primaryKey'] = null;
  const options: OptionEntry[] = [];
  for (const p of pairsOf(b.env, pair.value)) {
    const key = keyText(p);
    switch (key) {
      case 'columns':
        columns = buildColumns(b, p.value);
        break;
      case 'watermark':
        watermark = buildWatermark(b, p, [...place, 'watermark']);
        break;
      case 'primary_key': {
        const ids = itemsOf(b.env, p.value)
          .map((n) => identOf(b, n, 'column'))
          .filter((x): x is Ident => x !== null);
        if (ids.length) primaryKey = { columns: ids, span: nodeSpan(b.env, p.value) };
        break;
      }
      case 'fields':
        options.push(...buildFields(b, p, [...place, 'fields']));
        break;
      default: {
        if (key !== null && key.toLowerCase().startsWith('fields.')) {
          const [, column = '?', ...rest] = key.split('.');
          b.ctx.diagnostics.report('yaml-dotted-field-option', nodeSpan(b.env, p.key), { key, column, option: rest.join('.') || 'kind' });
          break;
        }
        const o = optionOf(b, p, place);
        if (o) options.push(o);
      }
    }
  }
  return { kind: 'source', name, columns, watermark, primaryKey, options, span: pairSpan(b.env, pair) };
}

function buildColumns(b: Builder, node: unknown): ColumnDef[] {
  const n = deref(b.env, node);
  const out: ColumnDef[] = [];
  if (isMap(n)) {
    for (const p of pairsOf(b.env, n)) {
      const name = identOf(b, p.key, 'column');
      if (name) out.push(buildColumn(b, name, p.value, pairSpan(b.env, p as Pair<unknown, unknown>)));
    }
  } else if (isSeq(n)) {
    for (const item of itemsOf(b.env, n)) {
      const namePair = findPair(b.env, item, 'name');
      const name = namePair && identOf(b, namePair.value, 'column');
      if (name) out.push(buildColumn(b, name, item, nodeSpan(b.env, item)));
    }
  }
  return out;
}

/**
 * A column whose type is missing or unreadable is kept as STRING (as the SQL front end does
 * after `unknown-type`), so one bad type does not also make the checker see no columns.
 */
function buildColumn(b: Builder, name: Ident, spec: unknown, span: ColumnDef['span']): ColumnDef {
  const typePair = findPair(b.env, spec, 'type');
  const typeNode = typePair && scalarNode(b, typePair.value);
  let type: SqlType = T.string();
  const typeSpan = typeNode ? nodeSpan(b.env, typeNode) : name.span;
  if (typeNode && typeof typeNode.value === 'string') {
    const parsed = parseTypeString(typeNode.value);
    if (parsed.ok) {
      type = parsed.type;
    } else if (!cutByFlowComma(b, spec, typeNode)) {
      // (validate.ts has already explained a type cut short by a comma in `{ ... }`.)
      const at = subSpanOf(b, typeNode)(parsed.offset, Math.min(parsed.end, typeNode.value.length));
      b.ctx.diagnostics.report('yaml-bad-type', at, { text: typeNode.value, detail: parsed.detail });
    }
  }
  const notNull = findPair(b.env, spec, 'not_null');
  if (notNull && scalarNode(b, notNull.value)?.value === true) type = withNullable(type, false);
  const metaPair = findPair(b.env, spec, 'metadata_from');
  const metaKey = metaPair ? stringValue(b, metaPair.value) : null;
  const metadataFrom = metaPair && metaKey !== null ? { key: metaKey, span: nodeSpan(b.env, metaPair.value) } : null;
  return { name, type, typeSpan, metadataFrom, span };
}

function cutByFlowComma(b: Builder, spec: unknown, typeNode: Scalar): boolean {
  const specNode = deref(b.env, spec);
  return isMap(specNode) && specNode.flow === true && typeNode.type === 'PLAIN' && hasUnclosedBracket(typeNode.value);
}

/** `{ column: ts, delay: 5s }` is `WATERMARK FOR ts AS ts - INTERVAL '5' SECOND`. */
function buildWatermark(b: Builder, pair: Pair<unknown, unknown>, place: string[]): WatermarkDef | null {
  const colPair = findPair(b.env, pair.value, 'column');
  const column = colPair && identOf(b, colPair.value, 'column');
  if (!column) return null;
  const delayPair = findPair(b.env, pair.value, 'delay');
  const exprPair = findPair(b.env, pair.value, 'expr');
  const span = pairSpan(b.env, pair);
  if (delayPair && exprPair) {
    b.ctx.diagnostics.report('yaml-conflicting-keys', nodeSpan(b.env, exprPair.key), { a: 'delay', b: 'expr', where: describePlace(place) });
    return null;
  }
  let expr: Expr | null = null;
  if (exprPair) {
    expr = sqlExprOf(b, exprPair.value);
  } else if (delayPair) {
    const delay = durationOf(b, delayPair.value, [...place, 'delay']);
    if (delay) {
      const wmSpan = nodeSpan(b.env, pair.value);
      expr = { kind: 'binary', op: '-', left: { kind: 'column', qualifier: null, name: column, span: column.span }, right: delay, span: wmSpan };
    }
  } else {
    b.ctx.diagnostics.report('yaml-missing-key', nodeSpan(b.env, pair.key), { key: 'delay', where: describePlace(place) });
  }
  return expr ? { column, expr, span } : null;
}

/** `fields: { amount: { kind: random, min: 1 } }` → `fields.amount.kind`, `fields.amount.min`. */
function buildFields(b: Builder, pair: Pair<unknown, unknown>, place: string[]): OptionEntry[] {
  const out: OptionEntry[] = [];
  for (const colPair of pairsOf(b.env, pair.value)) {
    const col = identOf(b, colPair.key, 'column');
    if (!col) continue;
    for (const optPair of pairsOf(b.env, colPair.value)) {
      const opt = keyText(optPair);
      if (opt === null) continue;
      const o = optionOf(b, optPair, [...place, col.name], `fields.${col.name}.${opt}`);
      if (o) out.push(o);
    }
  }
  return out;
}
