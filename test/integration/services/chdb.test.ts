// Smoke + contract tests of test/support/chdb.ts: real chdb (in-process ClickHouse), one session per script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runChdb } from '../../support/chdb.ts';

test('runChdb keeps one session across statements and returns rows per statement', async () => {
  const results = await runChdb(`
    CREATE TABLE t (id UInt32, name String) ENGINE = MergeTree ORDER BY id;
    INSERT INTO t VALUES (2, 'b'), (1, 'a');
    SELECT id, name FROM t ORDER BY id;
  `);
  assert.deepEqual(results, [
    { statement: 'CREATE TABLE t (id UInt32, name String) ENGINE = MergeTree ORDER BY id', rows: [] },
    { statement: "INSERT INTO t VALUES (2, 'b'), (1, 'a')", rows: [] },
    { statement: 'SELECT id, name FROM t ORDER BY id', rows: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] },
  ]);
});

test('semicolons inside string literals, quoted identifiers and comments do not split statements', async () => {
  const results = await runChdb(`
    -- a comment; with a semicolon
    CREATE TABLE \`odd;name\` (s String) ENGINE = Memory;
    INSERT INTO \`odd;name\` VALUES ('x;y'), ('it''s; fine'), ('back\\'slash;');
    /* block; comment */ SELECT s FROM \`odd;name\` ORDER BY s;;
  `);
  assert.equal(results.length, 3);
  assert.deepEqual(results[2]!.rows.map((r) => r['s']), ["back'slash;", "it's; fine", 'x;y']);
});

test('integers beyond 2^53 arrive as exact decimal strings, small ones as numbers', async () => {
  const [r] = await runChdb('SELECT toUInt64(18446744073709551615) AS big, toInt64(-9007199254740993) AS neg, toUInt64(42) AS small');
  assert.deepEqual(r!.rows, [{ big: '18446744073709551615', neg: '-9007199254740993', small: 42 }]);
});

test('AggregatingMergeTree + materialized view + -Merge query computes per-key aggregates', async () => {
  const results = await runChdb(`
    CREATE TABLE events (user String, amount UInt32) ENGINE = MergeTree ORDER BY user;
    CREATE TABLE totals (user String, total AggregateFunction(sum, UInt32), users AggregateFunction(uniq, String))
      ENGINE = AggregatingMergeTree ORDER BY user;
    CREATE MATERIALIZED VIEW totals_mv TO totals AS
      SELECT user, sumState(amount) AS total, uniqState(user) AS users FROM events GROUP BY user;
    INSERT INTO events VALUES ('ann', 3), ('bob', 5);
    INSERT INTO events VALUES ('ann', 4);
    SELECT user, sumMerge(total) AS total, uniqMerge(users) AS n FROM totals GROUP BY user ORDER BY user;
  `);
  // Two inserts make two parts for 'ann'; the -Merge combinators must fold them: 3 + 4 = 7.
  assert.deepEqual(results.at(-1)!.rows, [
    { user: 'ann', total: 7, n: 1 },
    { user: 'bob', total: 5, n: 1 },
  ]);
});

test('a failing statement rejects naming the statement and ClickHouse\'s message', async () => {
  await assert.rejects(
    runChdb('CREATE TABLE a (x UInt8) ENGINE = Memory; SELECT missing_column FROM a; SELECT 1'),
    (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /statement #2 failed: SELECT missing_column FROM a/);
      assert.match(err.message, /UNKNOWN_IDENTIFIER/);
      return true;
    },
  );
});

test('each call is a fresh session: tables from a previous call are gone', async () => {
  await runChdb('CREATE TABLE only_once (x UInt8) ENGINE = Memory');
  const [r] = await runChdb("SELECT count() AS c FROM system.tables WHERE database = currentDatabase() AND name = 'only_once'");
  assert.deepEqual(r!.rows, [{ c: 0 }]);
});

test('concurrent calls run in separate sessions: the same table name does not collide', async () => {
  const script = (n: number) => `CREATE TABLE same (x UInt8) ENGINE = Memory; INSERT INTO same VALUES (${n}); SELECT x FROM same`;
  const [a, b] = await Promise.all([runChdb(script(1)), runChdb(script(2))]);
  assert.deepEqual(a!.at(-1)!.rows, [{ x: 1 }]);
  assert.deepEqual(b!.at(-1)!.rows, [{ x: 2 }]);
});
