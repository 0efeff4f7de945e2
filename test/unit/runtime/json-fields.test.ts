// The field reader against V8's JSON.parse as the oracle: whatever it takes must be a value
// JSON.parse takes, with the same values for the wanted keys; whatever JSON.parse refuses it
// must leave (NOT_TAKEN), so the caller's full parse reports the error. Hand-picked edge cases,
// then seeded random objects, then the same objects with random bytes broken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonFieldReader, NOT_TAKEN } from '../../../targets/runtime/lib/formats/json-fields.ts';
import { prng } from '../../support/prng.ts';

const FIELDS = ['a', 'b', 'é', 'date_time', 'n'];

/** What the decoder would read from JSON.parse's object, or NOT_TAKEN when JSON.parse refuses it or it is no object. */
function oracle(text: string, fields: readonly string[]): Record<string, unknown> | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(v, f)) out[f] = (v as Record<string, unknown>)[f];
  return out;
}

/** Checks one text; returns whether the reader took it. */
function check(text: string, fields: readonly string[] = FIELDS, reader = new JsonFieldReader(fields)): boolean {
  // Padding on both sides: the reader must keep to [start, end).
  const bytes = Buffer.concat([Buffer.from('{"a":1}'), Buffer.from(text, 'utf8'), Buffer.from('x')]);
  const got = reader.read(bytes, 7, bytes.length - 1);
  const want = oracle(text, fields);
  if (want === null) assert.equal(got, NOT_TAKEN, `JSON.parse refuses ${JSON.stringify(text)}, the reader took it`);
  else if (got !== NOT_TAKEN) assert.deepStrictEqual(got, want, `values of ${JSON.stringify(text)}`);
  return got !== NOT_TAKEN;
}

test('takes plain objects and reads the wanted values as JSON.parse does', () => {
  const taken = [
    '{"a":1,"b":"x","c":[1,{"d":null}],"date_time":"2026-01-01 00:00:00.000"}',
    ' \t{ "a" : -0 , "b" : true , "n" : null }\r',
    '{}',
    '{"zz":{}}',
    '{"a":123456789012345,"b":1234567890123456789,"n":-9007199254740993}',
    '{"a":1.5e-3,"b":-0.0,"n":1E+400,"date_time":12e2}',
    '{"é":"ünïcødé 🎉","b":"plain"}',
    '{"a":"esc\\"aped\\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83c\\udf89 \\ud800"}',
    '{"a":1,"a":2,"b":{"x":[true,false,null]},"b":[[],[{}]]}',
    '{"url":"https:\\/\\/x","extra":"a\\u0000b","a":0}',
    '{"__proto__":{"polluted":1},"a":2}',
  ];
  for (const t of taken) assert.ok(check(t), `takes ${t}`);
});

test('leaves every value JSON.parse refuses or that is no object', () => {
  const refused = [
    '', ' ', '[1,2]', '"a"', '1', 'null', '\ufeff{"a":1}',
    '{"a":01}', '{"a":1.}', '{"a":.5}', '{"a":-}', '{"a":1e}', '{"a":+1}', '{"a":0x10}',
    '{"a":1,}', '{,"a":1}', '{"a" 1}', '{"a":1 "b":2}', '{"a":1}}', '{"a":1} x', '{"a":1',
    '{"a":"unterminated}', '{"a":"tab\there"}', '{"a":"bad \\x escape"}', '{"a":"\\u12G4"}',
    '{"a":tru}', '{"a":nul}', '{"a":True}', '{a:1}', "{'a':1}", '{"a":[1,]}', '{"a":[1 2]}',
    '{"a":{"b":1,}}', '{"a":NaN}', '{"a":Infinity}', '{"a":1}\u00a0',
  ];
  for (const t of refused) assert.equal(check(t), false, `leaves ${JSON.stringify(t)}`);
});

test('leaves keys with escapes and deep nesting to the full parse', () => {
  assert.equal(check('{"\\u0061":1}'), false);
  const deep = `{"x":${'['.repeat(80)}${']'.repeat(80)},"a":1}`;
  assert.equal(check(deep), false);
  assert.equal(check(`{"x":${'['.repeat(20)}${']'.repeat(20)},"a":1}`), true);
});

test('a wanted __proto__ key is never assigned (the reader is off)', () => {
  assert.equal(check('{"__proto__":1,"a":2}', ['__proto__', 'a']), false);
});

// Random JSON: objects of scalars, strings with escapes and non-ASCII, nested containers, random whitespace.
function randomJson(rnd: () => number, depth: number): string {
  const ws = (): string => [' ', '', '', '\t', '\n', '\r\n'][Math.floor(rnd() * 6)]!;
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const r = rnd();
  if (depth > 2 || r < 0.55) {
    return pick([
      () => String(Math.floor(rnd() * 1e6) * (rnd() < 0.3 ? -1 : 1)),
      () => String(rnd() * 1e3),
      () => pick(['0', '-0', '1e5', '2.5E-7', '9007199254740993', '123456789012345678901234', '0.1']),
      () => JSON.stringify(pick(['', 'x', 'é', '🎉', 'a"b', 'c\\d', '\n', '\u0001', '/'])),
      () => pick(['true', 'false', 'null']),
      () => '"' + pick(['\\u00e9', '\\/', '\\n', 'plain', '\\ud83c\\udf89']) + '"',
    ])();
  }
  if (r < 0.75) return `[${ws()}${Array.from({ length: Math.floor(rnd() * 3) }, () => randomJson(rnd, depth + 1)).join(`${ws()},${ws()}`)}${ws()}]`;
  return randomObject(rnd, depth + 1);
}

function randomObject(rnd: () => number, depth: number): string {
  const ws = (): string => [' ', '', '', '\t'][Math.floor(rnd() * 4)]!;
  const keys = ['a', 'b', 'é', 'date_time', 'n', 'other', 'url', 'aa', ''];
  const n = Math.floor(rnd() * 6);
  const members = Array.from({ length: n }, () => `${ws()}${JSON.stringify(keys[Math.floor(rnd() * keys.length)])}${ws()}:${ws()}${randomJson(rnd, depth)}`);
  return `{${members.join(',')}${ws()}}`;
}

test('random objects: taken, with the values JSON.parse gives', () => {
  const rnd = prng(20261202);
  const reader = new JsonFieldReader(FIELDS);
  for (let i = 0; i < 5000; i++) {
    const text = randomObject(rnd, 0);
    assert.ok(check(text, FIELDS, reader), `takes ${JSON.stringify(text)}`);
  }
});

test('random objects with broken bytes: never takes what JSON.parse refuses', () => {
  const rnd = prng(7);
  const reader = new JsonFieldReader(FIELDS);
  const junk = ['{', '}', '[', ']', '"', ',', ':', '\\', '-', '.', 'e', '0', ' ', 'x', '\u0001', 'é'];
  let refused = 0;
  for (let i = 0; i < 20000; i++) {
    const chars = [...randomObject(rnd, 0)];
    const edits = 1 + Math.floor(rnd() * 2);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(rnd() * (chars.length + 1));
      const op = rnd();
      if (op < 0.33) chars.splice(at, 1);
      else if (op < 0.66) chars.splice(at, 0, junk[Math.floor(rnd() * junk.length)]!);
      else chars[at] = junk[Math.floor(rnd() * junk.length)]!;
    }
    const text = chars.join('');
    if (oracle(text, FIELDS) === null) refused++;
    check(text, FIELDS, reader);
  }
  // The mutations must have produced many refused values, or this test checks nothing.
  assert.ok(refused > 5000, `refused ${refused}`);
});
