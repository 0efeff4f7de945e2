// Parsing of the Iceberg sink's `partition_by` (transforms of the Iceberg spec, with their
// type rules) and `sort_by` (`col [ASC|DESC] [NULLS FIRST|LAST]`) option values.
import type { IcebergTransform, IrColumn, IrPartitionField, IrSortField } from '../plan/ir.ts';
import { formatSqlType, type SqlType } from '../types/sql-type.ts';
import { findColumn } from './scope.ts';
import { suggest } from '../util/suggest.ts';

type Tok = { t: 'id'; v: string; quoted: boolean } | { t: 'num'; v: number } | { t: '(' | ')' | ',' };

function tokenize(text: string): Tok[] | string {
  const out: Tok[] = [];
  const re = /\s*(?:("(?:[^"]|"")*")|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|([(),]))/y;
  let i = 0;
  while (i < text.length) {
    if (/^\s*$/.test(text.slice(i))) break;
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return `unexpected '${text.slice(i).trim()[0]}'`;
    if (m[1]) out.push({ t: 'id', v: m[1].slice(1, -1).replace(/""/g, '"'), quoted: true });
    else if (m[2]) out.push({ t: 'id', v: m[2], quoted: false });
    else if (m[3]) out.push({ t: 'num', v: Number(m[3]) });
    else out.push({ t: m[4] as '(' | ')' | ',' });
    i = re.lastIndex;
  }
  return out;
}

export type SpecResult<T> = { ok: true; value: T } | { ok: false; detail: string; suggestion?: string | null };

const TRANSFORMS: IcebergTransform[] = ['identity', 'bucket', 'truncate', 'year', 'month', 'day', 'hour'];

/** Which column types a transform accepts (Iceberg spec, "Partition Transforms"). */
export function transformAccepts(tr: IcebergTransform, t: SqlType): boolean {
  const k = t.kind;
  if (k === 'array' || k === 'map' || k === 'row' || k === 'interval' || k === 'null') return false;
  switch (tr) {
    case 'identity':
      return true;
    case 'bucket':
      return !['float', 'double', 'boolean'].includes(k);
    case 'truncate':
      return ['int', 'bigint', 'decimal', 'string', 'bytes'].includes(k);
    case 'year':
    case 'month':
    case 'day':
      return k === 'date' || k === 'timestamp';
    case 'hour':
      return k === 'timestamp';
  }
}

export function parsePartitionBy(text: string, columns: IrColumn[]): SpecResult<IrPartitionField[]> {
  const toks = tokenize(text);
  if (typeof toks === 'string') return { ok: false, detail: toks };
  const out: IrPartitionField[] = [];
  let i = 0;
  const col = (tok: Tok | undefined): SpecResult<IrColumn> => {
    if (!tok || tok.t !== 'id') return { ok: false, detail: 'expected a column name' };
    const c = findColumn(columns, { name: tok.quoted ? tok.v : tok.v.toLowerCase(), quoted: tok.quoted });
    if (!c) return { ok: false, detail: `no column '${tok.v}' in the sink's rows`, suggestion: suggest(tok.v, columns.map((x) => x.name)) };
    return { ok: true, value: c };
  };
  while (i < toks.length) {
    const head = toks[i];
    if (!head || head.t !== 'id') return { ok: false, detail: 'expected a column or a transform' };
    let field: IrPartitionField;
    let c: IrColumn;
    if (toks[i + 1]?.t === '(') {
      const tr = head.v.toLowerCase() as IcebergTransform;
      if (!TRANSFORMS.includes(tr)) return { ok: false, detail: `unknown transform '${head.v}'`, suggestion: suggest(head.v, TRANSFORMS) };
      i += 2;
      let param: number | null = null;
      if (tr === 'bucket' || tr === 'truncate') {
        const n = toks[i];
        if (!n || n.t !== 'num' || n.v <= 0) return { ok: false, detail: `${tr} needs a positive ${tr === 'bucket' ? 'bucket count N' : 'width W'} first: ${tr}(${tr === 'bucket' ? 16 : 10}, col)` };
        param = n.v;
        if (toks[i + 1]?.t !== ',') return { ok: false, detail: `expected ',' after ${n.v}` };
        i += 2;
      }
      const r = col(toks[i]);
      if (!r.ok) return r;
      c = r.value;
      if (toks[i + 1]?.t !== ')') return { ok: false, detail: `expected ')' after ${c.name}` };
      i += 2;
      field = { column: c.name, transform: tr, param };
    } else {
      const r = col(head);
      if (!r.ok) return r;
      c = r.value;
      i += 1;
      field = { column: c.name, transform: 'identity', param: null };
    }
    if (!transformAccepts(field.transform, c.type))
      return { ok: false, detail: `${field.transform} cannot partition '${c.name}' of type ${formatSqlType(c.type, false)}` };
    if (out.some((f) => f.column === field.column && f.transform === field.transform)) return { ok: false, detail: `${field.transform}(${field.column}) is listed twice` };
    out.push(field);
    if (i < toks.length) {
      if (toks[i]!.t !== ',') return { ok: false, detail: "expected ',' between partition fields" };
      i += 1;
    }
  }
  return { ok: true, value: out };
}

export function parseSortBy(text: string, columns: IrColumn[]): SpecResult<IrSortField[]> {
  const out: IrSortField[] = [];
  for (const part of text.split(',')) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) return { ok: false, detail: 'empty sort field' };
    const raw = words[0]!;
    const quoted = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2;
    const id = quoted ? raw.slice(1, -1) : raw.toLowerCase();
    const c = findColumn(columns, { name: id, quoted });
    if (!c) return { ok: false, detail: `no column '${raw}' in the sink's rows`, suggestion: suggest(id, columns.map((x) => x.name)) };
    const rest = words.slice(1).map((w) => w.toUpperCase());
    let direction: 'asc' | 'desc' = 'asc';
    let nulls: 'first' | 'last' | null = null;
    let k = 0;
    if (rest[k] === 'ASC' || rest[k] === 'DESC') direction = rest[k++] === 'ASC' ? 'asc' : 'desc';
    if (rest[k] === 'NULLS') {
      if (rest[k + 1] !== 'FIRST' && rest[k + 1] !== 'LAST') return { ok: false, detail: 'NULLS must be followed by FIRST or LAST' };
      nulls = rest[k + 1] === 'FIRST' ? 'first' : 'last';
      k += 2;
    }
    if (k < rest.length) return { ok: false, detail: `unexpected '${words[k + 1]}' after ${raw}` };
    out.push({ column: c.name, direction, nulls: nulls ?? (direction === 'asc' ? 'first' : 'last') });
  }
  return { ok: true, value: out };
}
