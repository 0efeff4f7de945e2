// CST `dataType` → SqlType. Type names are plain identifiers in the grammar so that a typo
// gets "unknown type 'STRNG', did you mean STRING?" instead of a bare syntax error.
import type { CstNode } from 'chevrotain';
import type { SqlType } from '../../types/sql-type.ts';
import { T, withNullable } from '../../types/sql-type.ts';
import type { Span } from '../../diagnostics/span.ts';
import { boundedEditDistance } from '../../util/suggest.ts';
import { type Children, type SpanMaker, identFromToken, need, node, nodes, tok, toks } from './cst.ts';

/** Names the language knows, as suggested in messages. */
const CANONICAL = [
  'BOOLEAN', 'INT', 'INTEGER', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL', 'STRING', 'VARCHAR', 'BYTES',
  'DATE', 'TIMESTAMP', 'TIMESTAMP_LTZ', 'ARRAY', 'MAP', 'ROW',
];

/** Common names from other systems, mapped to what to write instead. */
const FOREIGN_HINTS: Record<string, string> = {
  text: 'STRING', json: 'STRING', uuid: 'STRING', char: 'STRING', long: 'BIGINT', int64: 'BIGINT',
  int32: 'INT', tinyint: 'INT', smallint: 'INT', datetime: 'TIMESTAMP(3)', number: 'DECIMAL(p, s)',
  real: 'FLOAT', blob: 'BYTES', binary: 'BYTES', bytea: 'BYTES', timestamptz: 'TIMESTAMP_LTZ(3)',
};

export interface TypeSink {
  spans: SpanMaker;
}

export function buildType(b: TypeSink, n: CstNode): { type: SqlType; span: Span } {
  const c = n.children as Children;
  const nameTok = need(tok(c, 'typeName'));
  const name = nameTok.image.startsWith('"') ? nameTok.image.slice(1, -1) : nameTok.image.toLowerCase();
  const span = b.spans.node(n);
  const params = toks(c, 'params');
  const args = nodes(c, 'typeArg');
  const nullable = tok(c, 'NULL') === undefined;
  const upper = name.toUpperCase();
  const bad = (detail: string): void => {
    b.spans.ctx.diagnostics.report('syntax-bad-type-args', span, { type: upper, detail });
  };
  const int = (i: number): number | null => {
    const t = params[i];
    if (!t) return null;
    if (!/^\d+$/.test(t.image)) {
      bad(`'${t.image}' is not a whole number`);
      return null;
    }
    return Number(t.image);
  };
  const noArgs = (): void => {
    if (args.length > 0) bad('takes no <...> arguments');
  };
  const maxParams = (k: number): void => {
    if (params.length > k) bad(k === 0 ? 'takes no (...) arguments' : `takes at most ${k} argument${k > 1 ? 's' : ''}`);
  };
  const plain = (t: SqlType, paramsAllowed = 0): SqlType => {
    noArgs();
    maxParams(paramsAllowed);
    return t;
  };
  let type: SqlType;
  switch (name) {
    case 'boolean':
    case 'bool':
      type = plain(T.boolean());
      break;
    case 'int':
    case 'integer':
      type = plain(T.int());
      break;
    case 'bigint':
      type = plain(T.bigint());
      break;
    case 'float':
      type = plain(T.float());
      break;
    case 'double':
      type = plain(T.double());
      break;
    case 'string':
      type = plain(T.string());
      break;
    case 'varchar':
      type = plain(T.string(), 1);
      break;
    case 'bytes':
    case 'varbinary':
      type = plain(T.bytes(), 1);
      break;
    case 'date':
      type = plain(T.date());
      break;
    case 'decimal':
    case 'numeric':
    case 'dec': {
      noArgs();
      maxParams(2);
      const p = int(0) ?? 10;
      const s = int(1) ?? 0;
      if (p < 1 || p > 38) bad(`precision ${p} is outside 1..38`);
      else if (s > p) bad(`scale ${s} is larger than precision ${p}`);
      type = T.decimal(p, s);
      break;
    }
    case 'timestamp':
    case 'timestamp_ltz': {
      noArgs();
      maxParams(1);
      const p = int(0) ?? 3;
      if (p > 9) bad(`precision ${p} is outside 0..9`);
      type = name === 'timestamp' ? T.timestamp(p) : T.timestampLtz(p);
      break;
    }
    case 'array': {
      maxParams(0);
      const el = args.length === 1 && !args[0]!.children.second ? buildType(b, need(node(args[0]!.children as Children, 'first'))).type : null;
      if (!el) bad('write ARRAY<element type>');
      type = T.array(el ?? T.string());
      break;
    }
    case 'map': {
      maxParams(0);
      const kv = args.filter((a) => !a.children.second).map((a) => buildType(b, need(node(a.children as Children, 'first'))).type);
      if (kv.length !== 2 || args.length !== 2) bad('write MAP<key type, value type>');
      type = T.map(kv[0] ?? T.string(), kv[1] ?? T.string());
      break;
    }
    case 'row': {
      maxParams(0);
      const fields = args.map((a) => {
        const ac = a.children as Children;
        const second = node(ac, 'second');
        const first = need(node(ac, 'first'));
        if (!second) {
          bad('each field needs a name and a type: ROW<name T, ...>');
          return { name: '?', type: buildType(b, first).type };
        }
        const fc = first.children as Children;
        const fieldName = identFromToken(need(tok(fc, 'typeName')), b.spans);
        if (fc.params || fc.typeArg || fc.NULL) bad(`field '${fieldName.name}' is written 'name TYPE'`);
        return { name: fieldName.name, type: buildType(b, second).type };
      });
      if (fields.length === 0) bad('a ROW needs at least one field');
      type = T.row(fields);
      break;
    }
    default:
      b.spans.ctx.diagnostics.report('unknown-type', b.spans.token(nameTok), { name: nameTok.image, suggestion: suggestType(name) });
      type = T.string();
  }
  return { type: withNullable(type, nullable), span };
}

function suggestType(name: string): string | null {
  const hint = Object.hasOwn(FOREIGN_HINTS, name) ? FOREIGN_HINTS[name] : undefined;
  if (hint) return hint;
  let best: string | null = null;
  let bestD = 3;
  for (const c of CANONICAL) {
    const d = boundedEditDistance(name.toUpperCase(), c, bestD);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== null && bestD <= Math.max(1, Math.floor(name.length / 3)) ? best : null;
}

