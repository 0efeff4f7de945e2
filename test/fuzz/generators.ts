// Generators of hostile inputs for the fuzz test (docs/security.md "Compiler limits"): deep
// nesting, `${}` floods, YAML prototype keys, CR / CRLF / U+2028 line separators, NUL bytes,
// `..` and `/` in names, very long names. Each takes a valid seed spec and a PRNG and returns
// a new text of the same form. Deterministic for a given PRNG state.

export type Generator = (seed: string, isSql: boolean, rnd: () => number) => string;

const pick = <T>(xs: readonly T[], rnd: () => number): T => xs[Math.floor(rnd() * xs.length)]!;
const between = (lo: number, hi: number, rnd: () => number): number => lo + Math.floor(rnd() * (hi - lo + 1));

/** Replaces the first `SELECT <list>` item list head with `expr AS fuzz_x,`; else appends a view. */
function withExpr(seed: string, isSql: boolean, expr: string): string {
  if (isSql) {
    const i = seed.search(/\bSELECT\b/i);
    if (i >= 0) return `${seed.slice(0, i + 6)} ${expr} AS fuzz_x,${seed.slice(i + 6)}`;
    return `${seed}\nCREATE VIEW fuzz_v AS SELECT ${expr} AS x FROM nowhere;\n`;
  }
  const i = seed.search(/SELECT\b/);
  return i >= 0 ? `${seed.slice(0, i + 6)} ${expr} AS fuzz_x,${seed.slice(i + 6)}` : `${seed}\n# ${expr.slice(0, 100)}\n`;
}

const NESTERS: ((n: number) => string)[] = [
  (n) => '('.repeat(n) + '1' + ')'.repeat(n),
  (n) => 'ABS('.repeat(n) + '1' + ')'.repeat(n),
  (n) => 'CASE WHEN TRUE THEN '.repeat(n) + '1' + ' END'.repeat(n),
  (n) => 'CAST('.repeat(n) + '1' + ' AS INT)'.repeat(n),
  (n) => 'NOT '.repeat(n) + 'TRUE',
  (n) => '- '.repeat(n) + '1',
  (n) => Array(n).fill('1').join(' + '),
  (n) => Array(n).fill('TRUE').join(' OR '),
  (n) => '('.repeat(n), // unbalanced
];

export const deepNesting: Generator = (seed, isSql, rnd) => {
  const n = pick([100, 255, 256, 257, 400, 1000, 3000, 10000], rnd);
  if (rnd() < 0.2) {
    const type = 'ARRAY<'.repeat(n) + 'INT' + '>'.repeat(n);
    return isSql ? seed.replace(/\b(BIGINT|INT|STRING)\b/, type) : seed.replace(/type: *(\w+)/, `type: '${type}'`);
  }
  return withExpr(seed, isSql, pick(NESTERS, rnd)(n));
};

export const envFlood: Generator = (seed, _isSql, rnd) => {
  const n = between(1000, 20000, rnd);
  const v = pick(['${A}', '${PIPEC_KAFKA_BROKERS}', '${', '${constructor}', '${__proto__}'], rnd);
  const flood = v.repeat(n);
  const i = seed.indexOf("'", Math.floor(rnd() * seed.length));
  return i < 0 ? seed + flood : seed.slice(0, i + 1) + flood + seed.slice(i + 1);
};

const PROTO = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

export const prototypeKeys: Generator = (seed, isSql, rnd) => {
  const k = pick(PROTO, rnd);
  if (isSql) {
    // As option keys, names and env variables.
    return pick([
      () => seed.replace(/WITH \(/, `WITH (${k} = 'x', `),
      () => seed.replace(/connector *= *'[a-z-]+'/, `connector = '${k}'`),
      () => seed.replace(/CREATE (SOURCE|VIEW|SINK) (\w+)/, `CREATE $1 ${k}`),
      () => seed.replace(/'\$\{(\w+)\}'/, `'\${${k}}'`),
      () => seed.replace(/format *= *'[a-z]+'/, `format = '${k}'`),
    ], rnd)();
  }
  const lines = seed.split('\n');
  const at = Math.floor(rnd() * lines.length);
  const indent = /^ */.exec(lines[at] ?? '')![0];
  lines.splice(at, 0, `${indent}${k}:${rnd() < 0.5 ? ' {}' : `\n${indent}  a: {}`}`);
  if (rnd() < 0.3) return `${k}:\n  x: {}\n${lines.join('\n')}`;
  return lines.join('\n');
};

export const lineSeparators: Generator = (seed, _isSql, rnd) => {
  const sep = pick(['\r', '\r\n', '\u2028', '\u2029', '\n\r'], rnd);
  if (rnd() < 0.5) return seed.replace(/\n/g, sep);
  return seed.replace(/\n/g, () => (rnd() < 0.3 ? sep : '\n'));
};

export const nulBytes: Generator = (seed, _isSql, rnd) => {
  let t = seed;
  const n = between(1, 4, rnd);
  for (let i = 0; i < n; i++) {
    const where = rnd();
    if (where < 0.5) {
      // Inside a quoted name or string.
      const m = [...t.matchAll(/["']([^"'\n]*)["']/g)];
      const q = m.length ? pick(m, rnd) : null;
      if (q) {
        const p = q.index! + 1 + Math.floor(rnd() * (q[1]!.length + 1));
        t = t.slice(0, p) + '\0' + t.slice(p);
        continue;
      }
    }
    const p = Math.floor(rnd() * (t.length + 1));
    t = t.slice(0, p) + '\0' + t.slice(p);
  }
  return t;
};

const PATHY = ['..', '../x', '../../victim', 'a/b', '/abs', '.', 'a\\\\b', 'con', ' ', '...'];

export const pathNames: Generator = (seed, isSql, rnd) => {
  const bad = pick(PATHY, rnd);
  const quoted = isSql ? `"${bad}"` : `'"${bad}"'`;
  if (isSql) {
    return pick([
      () => seed.replace(/PIPELINE (\w+)/, `PIPELINE ${quoted}`),
      () => seed.replace(/CREATE SINK (\w+)/, `CREATE SINK ${quoted}`),
      () => seed.replace(/CREATE COMPACTION POLICY (\w+)/, `CREATE COMPACTION POLICY ${quoted}`),
      () => seed.replace(/table *= *'[^']*'/, `table = '${bad}.${bad}'`),
    ], rnd)();
  }
  return pick([
    () => seed.replace(/^pipeline: *.*$/m, `pipeline: ${quoted}`),
    () => seed.replace(/^sinks:\n( +)(\w+):/m, `sinks:\n$1${quoted}:`),
    () => seed.replace(/table: *.*$/m, `table: '${bad}.${bad}'`),
  ], rnd)();
};

export const longNames: Generator = (seed, isSql, rnd) => {
  const n = pick([1000, 10000, 100000], rnd);
  const name = pick(['x', 'é', '"'], rnd).repeat(n);
  const ident = name.startsWith('x') ? name : `"${name.replace(/"/g, '""')}"`;
  const ids = [...seed.matchAll(/\b[a-z_][a-z0-9_]{2,}\b/g)];
  if (ids.length === 0) return seed + ident;
  const m = pick(ids, rnd);
  // Either one occurrence (an unknown name: exercises "did you mean") or all (a valid long name).
  if (rnd() < 0.5) return seed.slice(0, m.index!) + ident + seed.slice(m.index! + m[0].length);
  return seed.split(m[0]).join(isSql ? ident : name.startsWith('x') ? name : `'${ident}'`);
};

export const GENERATORS: Record<string, Generator> = { deepNesting, envFlood, prototypeKeys, lineSeparators, nulBytes, pathNames, longNames };
