// Comments survive `pipec fmt --to yaml` and back (issue #13.8): each comment of a .pipe.sql file lands next to the
// same option, column, watermark or statement in the YAML (as `#` comments), and the YAML read back prints them
// where they were. Comments written in a .pipe.yaml file reach the SQL the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from '../../../src/api.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function fmt(file: string, text: string, to: 'sql' | 'yaml'): string {
  const r = format({ path: file, text, to });
  assert.ok(r.text !== null, `${file} did not parse: ${JSON.stringify(r.diagnostics.map((d) => d.message))}`);
  return r.text;
}

/** The comment texts of a file without their markers (line comments, block comments, YAML hash comments), in order. */
function commentTexts(text: string, form: 'sql' | 'yaml'): string[] {
  const out: string[] = [];
  if (form === 'sql') {
    // String literals first, so a `--` inside one is no comment.
    for (const m of text.replace(/'(?:[^']|'')*'/g, "''").matchAll(/--([^\n]*)|\/\*([\s\S]*?)\*\//g)) out.push((m[1] ?? m[2]!).trim());
  } else {
    let block: string[] | null = null;
    for (const line of text.split('\n')) {
      const m = /(?:^|\s)#(.*)$/.exec(line);
      if (!m || /^\s*(query|[a-z_]+): \|/.test(line)) continue;
      const t = m[1]!.trim();
      if (block) {
        block.push(t);
        if (t.endsWith('*/')) out.push(block.join('\n').replace(/^\/\*|\*\/$/g, '').trim()), (block = null);
      } else if (t.startsWith('/*') && !t.endsWith('*/')) block = [t];
      else out.push(t.replace(/^\/\*|\*\/$/g, '').trim());
    }
  }
  return out.map((t) => t.replace(/\s+/g, ' '));
}

const SQL = `-- header comment
-- second header line
PIPELINE shop WITH (
  checkpoint_interval = '30 s'  -- how often
);  -- after pipeline

/* a block comment
   over two lines */
CREATE SOURCE orders (
  id     BIGINT NOT NULL,  -- the key
  amount DECIMAL(12, 2),   -- money
                           -- continued
  ts     TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND  -- watermark note
) WITH (
  connector = 'kafka',  -- always kafka
  -- before topic
  topic     = 'orders',
  brokers   = 'localhost:9092',
  format    = 'json'  /* inline block */
);

-- pipec:allow clickhouse-no-watermark
CREATE VIEW v AS
SELECT id, amount  -- inside the query
FROM orders
WHERE amount > 0;  -- after view

CREATE SINK s FROM v WITH (
  connector = 'iceberg',  -- the lake
  catalog   = 'lake',
  table     = 'db.t'
);

CREATE COMPACTION POLICY p ON s (
  -- before the first action
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY RETAIN LAST 5,  -- keep five
  -- before the second action
  REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY
);
-- the end
`;

test('sql → yaml: each comment sits at its item, as a # comment', () => {
  const yaml = fmt('c.pipe.sql', SQL, 'yaml');
  const lines = yaml.split('\n');
  const at = (re: RegExp): number => {
    const i = lines.findIndex((l) => re.test(l));
    assert.ok(i >= 0, `no line matches ${re}:\n${yaml}`);
    return i;
  };
  assert.deepEqual(lines.slice(0, 3), ['# header comment', '# second header line', 'pipeline: shop # after pipeline']);
  at(/^ {2}checkpoint_interval: 30 s # how often$/);
  at(/^ {4}connector: kafka # always kafka$/);
  assert.equal(at(/^ {4}topic: orders$/) - 1, at(/^ {4}# before topic$/));
  at(/^ {4}format: json #\/\* inline block \*\/$/);
  at(/^ {6}id: \{ type: BIGINT, not_null: true \} # the key$/);
  at(/^ {6}amount: .* # money$/);
  // A comment continuing a trailing one over more lines cannot follow a YAML value: it goes above the next item.
  assert.equal(at(/^ {6}ts: /) - 1, at(/^ {6}# continued$/));
  at(/^ {4}watermark: .* # watermark note$/);
  assert.ok(at(/^ {2}#\/\* a block comment$/) < at(/^ {2}orders:$/));
  at(/^ {2}v: # after view$/);
  assert.ok(at(/^ {2}# pipec:allow clickhouse-no-watermark$/) < at(/^ {2}v:/));
  assert.ok(at(/^ {2}# inside the query$/) < at(/^ {2}v:/));
  at(/^ {6}- expire_snapshots: .* # keep five$/);
  // Before a list's first item is before its statement (as `fmt` prints SQL).
  assert.equal(at(/^ {2}p:$/) - 1, at(/^ {2}# before the first action$/));
  assert.equal(at(/^ {6}- remove_orphan_files:/) - 1, at(/^ {6}# before the second action$/));
  at(/^ {4}connector: iceberg # the lake$/);
  assert.equal(lines.filter((l) => l !== '').at(-1), '# the end');
  assert.deepEqual(commentTexts(yaml, 'yaml').sort(), commentTexts(SQL, 'sql').sort(), 'every comment once, none invented');
});

test('sql → yaml → sql puts every comment back where `fmt` puts it in SQL', () => {
  const direct = fmt('c.pipe.sql', SQL, 'sql');
  const back = fmt('c.pipe.yaml', fmt('c.pipe.sql', SQL, 'yaml'), 'sql');
  // The one move: the continued comment is now a comment above `ts` (see above); everything else is identical.
  const norm = (t: string): string => t.replace(/\n\s+-- continued\n/, '\n  -- continued\n');
  assert.equal(norm(back), norm(direct));
  assert.match(back, /\n {2}-- continued\n {2}ts {5}TIMESTAMP\(3\),/);
  assert.match(back, /\);  -- after pipeline\n/);
  assert.match(back, /WHERE amount > 0;  -- after view\n/);
  assert.match(back, /^-- pipec:allow clickhouse-no-watermark\n/m);
  // And it is a fixpoint: yaml → sql → yaml gives the same YAML.
  const y1 = fmt('c.pipe.sql', SQL, 'yaml');
  assert.equal(fmt('d.pipe.sql', back, 'yaml'), y1);
  assert.equal(fmt('c.pipe.yaml', y1, 'yaml'), y1, 'formatting the YAML keeps it as is');
});

test('comments written in YAML reach the SQL at their items; a pipec:allow keeps working', () => {
  const yaml = `# about this pipeline
pipeline: shop
sources:
  # the orders topic
  orders: # trailing on the key line
    connector: kafka # always
    # which topic
    topic: orders
    format: json
    columns:
      id: { type: BIGINT } # the id
sinks:
  # pipec:allow some-code
  out:
    from: orders
    connector: stdout
`;
  const sql = fmt('y.pipe.yaml', yaml, 'sql');
  assert.match(sql, /^-- about this pipeline\nPIPELINE shop;/);
  assert.match(sql, /-- the orders topic\nCREATE SOURCE orders \(/);
  assert.match(sql, /\n {2}id BIGINT {2}-- the id\n\)/);
  assert.match(sql, /\n {2}connector = 'kafka', {2}-- always\n {2}-- which topic\n {2}topic {5}= 'orders',/);
  assert.match(sql, /\n\);  -- trailing on the key line\n/);
  assert.match(sql, /-- pipec:allow some-code\nCREATE SINK out FROM orders/);
  assert.deepEqual(commentTexts(sql, 'sql').sort(), commentTexts(yaml, 'yaml').sort());
});

const specs = readdirSync(path.join(root, 'specs')).filter((f) => /\.pipe\.(sql|yaml)$/.test(f));

test('the shipped specs are formatted, and keep every comment through the other form and back', () => {
  assert.equal(specs.length, 5);
  for (const f of specs) {
    const text = readFileSync(path.join(root, 'specs', f), 'utf8');
    const form = f.endsWith('.sql') ? 'sql' : 'yaml';
    const other = form === 'sql' ? 'yaml' : 'sql';
    assert.equal(fmt(f, text, form), text, `specs/${f} is not formatted`);
    const converted = fmt(f, text, other);
    const back = fmt(f.replace(/\.pipe\.\w+$/, `.pipe.${other}`), converted, form);
    assert.deepEqual(commentTexts(converted, other).sort(), commentTexts(text, form).sort(), `specs/${f} → ${other}`);
    assert.deepEqual(commentTexts(back, form).sort(), commentTexts(text, form).sort(), `specs/${f} → ${other} → ${form}`);
  }
});

// Found by the compiler fuzz (lineSeparators mutations): a file of comments only, and a comment holding a line
// separator, which SQL keeps inside one `--` comment but the YAML writer used to break into a new `#` line.
test('a comment-only file and a comment with U+2028 are stable through fmt --to yaml', () => {
  const once = fmt('c.pipe.sql', '-- only a comment\n', 'yaml');
  assert.equal(once, '# only a comment\n');
  assert.equal(fmt('c.pipe.yaml', once, 'yaml'), once, 'the comment of an otherwise empty YAML file is kept');
  const sep = fmt('s.pipe.sql', "-- one\u2028two\nCREATE SOURCE x (a INT) WITH (connector = 'datagen');\n", 'yaml');
  assert.ok(!/[\u2028\u2029\u0085]/.test(sep), 'no line separator reaches a YAML comment');
  assert.equal(fmt('s.pipe.yaml', sep, 'yaml'), sep, 'idempotent');
});
