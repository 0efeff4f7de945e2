// A SQL type written as a YAML string (`DECIMAL(12, 2)`, `ARRAY<ROW<id BIGINT, tag STRING>>`)
// → the SqlType the SQL front end builds for the same text. Small recursive-descent parser.
import { closest } from './suggest.ts';
import { MAX_NESTING_DEPTH } from '../nesting.ts';
import { T, withNullable, type RowField, type SqlType } from '../../types/sql-type.ts';

/** On failure, [offset, end) is the part of the text the detail is about. */
export type TypeParse = { ok: true; type: SqlType } | { ok: false; detail: string; offset: number; end: number };

interface Tok {
  kind: 'word' | 'quoted' | 'number' | 'punct' | 'end';
  text: string;
  offset: number;
  /** Length in the source text (quoted names include their quotes). */
  length: number;
}

class TypeSyntaxError {
  readonly offset: number;
  readonly end: number;
  constructor(
    readonly detail: string,
    at: Tok | number,
  ) {
    this.offset = typeof at === 'number' ? at : at.offset;
    this.end = this.offset + Math.max(1, typeof at === 'number' ? 1 : at.length);
  }
}

function tokenize(text: string): Tok[] {
  const toks: Tok[] = [];
  const re = /\s+|([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"]|"")*")|(\d+)|([()<>,])/y;
  let i = 0;
  while (i < text.length) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new TypeSyntaxError(`unexpected '${text[i]}'`, i);
    if (m[1] !== undefined) toks.push({ kind: 'word', text: m[1], offset: i, length: m[0].length });
    else if (m[2] !== undefined) toks.push({ kind: 'quoted', text: m[2].slice(1, -1).replace(/""/g, '"'), offset: i, length: m[0].length });
    else if (m[3] !== undefined) toks.push({ kind: 'number', text: m[3], offset: i, length: m[0].length });
    else if (m[4] !== undefined) toks.push({ kind: 'punct', text: m[4], offset: i, length: 1 });
    i = re.lastIndex;
  }
  toks.push({ kind: 'end', text: '', offset: text.length, length: 0 });
  return toks;
}

const TYPE_NAMES = ['BOOLEAN', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL', 'STRING', 'VARCHAR', 'BYTES', 'DATE', 'TIMESTAMP', 'TIMESTAMP_LTZ', 'ARRAY', 'MAP', 'ROW'];

const SIMPLE: Record<string, () => SqlType> = {
  BOOLEAN: () => T.boolean(),
  BOOL: () => T.boolean(),
  INT: () => T.int(),
  INTEGER: () => T.int(),
  BIGINT: () => T.bigint(),
  FLOAT: () => T.float(),
  DOUBLE: () => T.double(),
  STRING: () => T.string(),
  BYTES: () => T.bytes(),
  DATE: () => T.date(),
};

/** Parses a whole type string; never throws. */
export function parseTypeString(text: string): TypeParse {
  try {
    const p = new Parser(tokenize(text));
    const type = p.type();
    p.expectEnd();
    return { ok: true, type };
  } catch (e) {
    if (e instanceof TypeSyntaxError) return { ok: false, detail: e.detail, offset: e.offset, end: e.end };
    throw e;
  }
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok {
    return this.toks[this.i]!;
  }
  private next(): Tok {
    const t = this.toks[this.i]!;
    if (t.kind !== 'end') this.i++;
    return t;
  }
  private isPunct(p: string): boolean {
    const t = this.peek();
    return t.kind === 'punct' && t.text === p;
  }
  private expectPunct(p: string): void {
    const t = this.next();
    if (t.kind !== 'punct' || t.text !== p) throw new TypeSyntaxError(`expected '${p}'${found(t)}`, t);
  }
  private isWord(w: string): boolean {
    const t = this.peek();
    return t.kind === 'word' && t.text.toUpperCase() === w;
  }

  expectEnd(): void {
    const t = this.peek();
    if (t.kind !== 'end') throw new TypeSyntaxError(`unexpected ${found(t).replace(/^, found /, '')} after the type`, t);
  }

  type(): SqlType {
    // ARRAY<ARRAY<...>> recurses here; refuse past the limit every later walker relies on.
    if (++this.depth > MAX_NESTING_DEPTH) throw new TypeSyntaxError(`the type nests more than ${MAX_NESTING_DEPTH} levels deep`, this.peek());
    const base = this.baseType();
    this.depth--;
    if (this.isWord('NOT')) {
      this.next();
      const t = this.next();
      if (t.kind !== 'word' || t.text.toUpperCase() !== 'NULL') throw new TypeSyntaxError(`expected NULL after NOT${found(t)}`, t);
      return withNullable(base, false);
    }
    return base;
  }

  private numbers(max: number): number[] {
    if (!this.isPunct('(')) return [];
    this.next();
    const out: number[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind !== 'number') throw new TypeSyntaxError(`expected a number${found(t)}`, t);
      out.push(Number(t.text));
      if (this.isPunct(',')) {
        this.next();
        continue;
      }
      this.expectPunct(')');
      break;
    }
    if (out.length > max) throw new TypeSyntaxError(`takes at most ${max} parameter${max === 1 ? '' : 's'}`, this.peek());
    return out;
  }

  private baseType(): SqlType {
    const t = this.next();
    if (t.kind !== 'word') throw new TypeSyntaxError(`expected a type name${found(t)}`, t);
    const name = t.text.toUpperCase();
    const simple = Object.hasOwn(SIMPLE, name) ? SIMPLE[name] : undefined;
    if (simple) return simple();
    switch (name) {
      case 'VARCHAR':
        this.numbers(1);
        return T.string();
      case 'VARBINARY':
        this.numbers(1);
        return T.bytes();
      case 'DECIMAL':
      case 'NUMERIC':
      case 'DEC': {
        const [p = 10, s = 0] = this.numbers(2);
        if (p < 1 || p > 38) throw new TypeSyntaxError(`DECIMAL precision must be 1 to 38, not ${p}`, t);
        if (s > p) throw new TypeSyntaxError(`DECIMAL scale ${s} is larger than its precision ${p}`, t);
        return T.decimal(p, s);
      }
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ': {
        const [p = 3] = this.numbers(1);
        if (p > 9) throw new TypeSyntaxError(`${name} precision must be 0 to 9, not ${p}`, t);
        return name === 'TIMESTAMP' ? T.timestamp(p) : T.timestampLtz(p);
      }
      case 'ARRAY': {
        this.expectPunct('<');
        const el = this.type();
        this.expectPunct('>');
        return T.array(el);
      }
      case 'MAP': {
        this.expectPunct('<');
        const k = this.type();
        this.expectPunct(',');
        const v = this.type();
        this.expectPunct('>');
        return T.map(k, v);
      }
      case 'ROW': {
        this.expectPunct('<');
        const fields: RowField[] = [];
        for (;;) {
          const n = this.next();
          if (n.kind !== 'word' && n.kind !== 'quoted') throw new TypeSyntaxError(`expected a field name${found(n)}`, n);
          const fieldName = n.kind === 'word' ? n.text.toLowerCase() : n.text;
          if (fields.some((f) => f.name === fieldName)) throw new TypeSyntaxError(`field '${fieldName}' appears twice`, n);
          fields.push({ name: fieldName, type: this.type() });
          if (this.isPunct(',')) {
            this.next();
            continue;
          }
          this.expectPunct('>');
          break;
        }
        return T.row(fields);
      }
      default: {
        const s = closest(name, TYPE_NAMES);
        throw new TypeSyntaxError(`unknown type '${t.text}'${s ? `; did you mean ${s}?` : ''}`, t);
      }
    }
  }
}

function found(t: Tok): string {
  if (t.kind === 'end') return ', found the end';
  return `, found '${t.kind === 'quoted' ? `"${t.text}"` : t.text}'`;
}
