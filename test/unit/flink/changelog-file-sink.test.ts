// A file sink fed by a changelog (GROUP BY … EMIT CHANGES) in the Flink script: Flink's
// filesystem sink refuses update rows in the plain json format ("doesn't support consuming update
// changes"), so such a sink is written with debezium-json; an append sink keeps plain json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pipec } from '../../cli/run-cli.ts';

const spec = `CREATE SOURCE bid (auction BIGINT NOT NULL, price BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');
CREATE VIEW top WITH (state_ttl = '1 d') AS SELECT auction, MAX(price) AS top FROM bid GROUP BY auction EMIT CHANGES;
CREATE SINK changes FROM top WITH (connector = 'file', path = 'top.ndjson', format = 'ndjson');
CREATE SINK raw FROM bid WITH (connector = 'file', path = 'raw.ndjson', format = 'ndjson');
`;

/** The WITH options of the `CREATE TEMPORARY TABLE <name>` statement of the script. */
function withOf(sql: string, table: string): string {
  const at = sql.indexOf(`CREATE TEMPORARY TABLE \`${table}\``);
  assert.ok(at >= 0, `no table ${table} in:\n${sql}`);
  return sql.slice(at, sql.indexOf(';', at));
}

test('a changelog file sink is debezium-json on Flink, with its upsert key; an append one stays json', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-flink-changelog-'));
  writeFileSync(path.join(dir, 'p.pipe.sql'), spec);
  const r = pipec(['build', 'p.pipe.sql', '--target', 'flink', '--out', 'generated'], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  const sql = readFileSync(path.join(dir, 'generated', 'p', 'flink', 'pipeline.sql'), 'utf8');
  const changes = withOf(sql, 'changes__sink');
  assert.match(changes, /'format' = 'debezium-json'/);
  assert.match(changes, /PRIMARY KEY \(`auction`\) NOT ENFORCED/);
  assert.doesNotMatch(changes, /'format' = 'json'/);
  const raw = withOf(sql, 'raw__sink');
  assert.match(raw, /'format' = 'json'/);
  assert.doesNotMatch(raw, /debezium/);
});
