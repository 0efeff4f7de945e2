// Secret planting over every output (issue 12 item 6, issue 21 item 2): profile and environment
// values are unique random strings used where secrets live (a DSN, a URL with its password, a
// password option, a catalog token, a registry URL, a broker list) and inside SQL string
// literals. Every command runs on the specs (check, build of all targets, build --check, plan
// text/json/dot, diff, fmt, explain, compact and run against servers that are not there, so
// errors are printed); no stdout, no stderr and no file written may hold any of the secrets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pipec, type CliRun } from './run-cli.ts';

const secret = (): string => `zz${randomBytes(9).toString('hex')}`;
const S = {
  chPassword: secret(),
  chUrlPassword: secret(),
  dsnPassword: secret(),
  brokersHost: secret(),
  catalogToken: secret(),
  catalogUriPassword: secret(),
  warehouse: secret(),
  token: secret(),
  badDuration: secret(),
  registryPassword: secret(),
  envOnly: secret(),
};

// Port 1 on loopback refuses connections: every connector fails fast and says so.
const CONFIG = `default_profile: dev
profiles:
  dev:
    PIPEC_T_CH_URL: http://pipec:${S.chUrlPassword}@127.0.0.1:1
    PIPEC_T_CH_PASSWORD: ${S.chPassword}
    PIPEC_T_DSN: postgres://pipec:${S.dsnPassword}@127.0.0.1:1/shop
    PIPEC_T_BROKERS: ${S.brokersHost}.invalid:9092
    PIPEC_T_CATALOG_URI: http://cat:${S.catalogUriPassword}@127.0.0.1:1/catalog
    PIPEC_T_CATALOG_TOKEN: ${S.catalogToken}
    PIPEC_T_WAREHOUSE: s3://${S.warehouse}/warehouse
    PIPEC_T_TOKEN: ${S.token}
    PIPEC_T_BAD_DURATION: ${S.badDuration}
    PIPEC_T_ENV_ONLY: overridden-by-the-environment
`;
const ENV = {
  PIPEC_SCHEMA_REGISTRY_URL: `http://reg:${S.registryPassword}@127.0.0.1:1`,
  PIPEC_T_ENV_ONLY: S.envOnly,
};

const ALL = (pipeline: string, extra = ''): string => `PIPELINE ${pipeline} WITH (checkpoint_interval = '10 s');

CREATE SOURCE customers (
  id BIGINT NOT NULL,
  tier STRING NOT NULL,
  updated_at TIMESTAMP(6) NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_T_DSN}', table = 'public.customers', heartbeat = '1 min');

CREATE SOURCE orders (
  order_id STRING NOT NULL,
  customer_id BIGINT NOT NULL,
  amount DECIMAL(12, 2) NOT NULL,
  order_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'orders', brokers = '\${PIPEC_T_BROKERS}', group_id = '\${PIPEC_T_ENV_ONLY}', format = 'json', key = 'customer_id', idle_timeout = '30 s');

CREATE VIEW enriched AS
SELECT o.order_id, o.customer_id, c.tier, o.amount, o.order_ts, '\${PIPEC_T_TOKEN}' AS tag${extra}
FROM orders AS o
JOIN customers FOR SYSTEM_TIME AS OF o.order_ts AS c ON o.customer_id = c.id
WHERE o.order_id <> '\${PIPEC_T_TOKEN}';

CREATE VIEW revenue AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM TUMBLE(enriched, order_ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK revenue_ch FROM revenue WITH (
  connector = 'clickhouse', url = '\${PIPEC_T_CH_URL}', user = 'pipec', password = '\${PIPEC_T_CH_PASSWORD}',
  table = 'sales.revenue', order_by = 'customer_id, window_start');

CREATE CATALOG lake WITH (type = 'rest', uri = '\${PIPEC_T_CATALOG_URI}', warehouse = '\${PIPEC_T_WAREHOUSE}', token = '\${PIPEC_T_CATALOG_TOKEN}');

CREATE SINK revenue_lake FROM revenue WITH (connector = 'iceberg', catalog = 'lake', table = 'sales.revenue', partition_by = 'day(window_start)', commit_interval = '1 min');

CREATE COMPACTION POLICY revenue_maint ON revenue_lake (
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY RETAIN LAST 5
) SCHEDULE EVERY INTERVAL '1' HOUR;
`;

// Runs on datagen and fails at its ClickHouse sink (nothing listens on port 1).
const RUN = `CREATE SOURCE ticks (id BIGINT NOT NULL, page STRING NOT NULL) WITH (
  connector = 'datagen', total_rows = 50, fields.id.kind = 'sequence', fields.page.kind = 'choice', fields.page.values = 'a,b');
CREATE VIEW tagged AS SELECT id, page, '\${PIPEC_T_TOKEN}' AS tag FROM ticks WHERE page <> '\${PIPEC_T_TOKEN}';
CREATE SINK ch FROM tagged WITH (connector = 'clickhouse', url = '\${PIPEC_T_CH_URL}', password = '\${PIPEC_T_CH_PASSWORD}', table = 'db.t', order_by = 'id');
`;

// Errors whose messages quote option values: a bad duration, an unreachable registry and
// PostgreSQL, a malformed table name.
const BAD = `CREATE SOURCE orders (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'kafka', topic = 'orders', brokers = '\${PIPEC_T_BROKERS}', format = 'avro', schema = 'registry:orders-value', idle_timeout = '\${PIPEC_T_BAD_DURATION}');
CREATE SOURCE customers (id BIGINT NOT NULL, PRIMARY KEY (id) NOT ENFORCED) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_T_DSN}', table = 'public.nosuch');
CREATE SINK s FROM orders WITH (connector = 'clickhouse', url = '\${PIPEC_T_CH_URL}', table = 'x.\${PIPEC_T_TOKEN}.y', order_by = 'id');
`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('no planted secret reaches any output of any command, nor any file written', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-secrets-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'pipec.yaml'), CONFIG);
  writeFileSync(join(dir, 'all.pipe.sql'), ALL('secrets_all'));
  writeFileSync(join(dir, 'all2.pipe.sql'), ALL('secrets_all', ', o.amount * 2 AS doubled'));
  writeFileSync(join(dir, 'run.pipe.sql'), RUN);
  writeFileSync(join(dir, 'bad.pipe.sql'), BAD);

  const runs: [string, CliRun][] = [];
  const cli = (...args: string[]): CliRun => {
    const r = pipec(args, { cwd: dir, env: ENV });
    runs.push([args.join(' '), r]);
    return r;
  };
  const specs = ['all.pipe.sql', 'run.pipe.sql'];
  assert.equal(cli('check', ...specs).status, 0);
  cli('check', ...specs, '--format', 'json');
  assert.equal(cli('check', 'bad.pipe.sql').status, 1);
  cli('check', 'bad.pipe.sql', '--format', 'json');
  assert.equal(cli('build', ...specs, '--target', 'all', '--out', 'gen').status, 0);
  assert.equal(cli('build', ...specs, '--target', 'all', '--out', 'gen', '--check').status, 0);
  cli('build', 'bad.pipe.sql', '--out', 'gen-bad');
  for (const spec of specs) for (const format of ['text', 'json', 'dot']) assert.equal(cli('plan', spec, '--format', format).status, 0);
  cli('plan', 'bad.pipe.sql');
  cli('diff', 'all.pipe.sql', 'all2.pipe.sql');
  cli('fmt', 'all.pipe.sql');
  const yaml = cli('fmt', 'all.pipe.sql', '--to', 'yaml');
  writeFileSync(join(dir, 'yaml.pipe.yaml'), yaml.stdout.replace(/secrets_all/g, 'secrets_yaml'));
  cli('check', 'yaml.pipe.yaml');
  cli('plan', 'yaml.pipe.yaml', '--format', 'json');
  cli('fmt', 'yaml.pipe.yaml', '--to', 'sql');
  cli('explain', 'env-in-sql-literal');
  assert.equal(cli('compact', 'all.pipe.sql').status, 1, 'the catalog is not reachable');
  const run = cli('run', 'run.pipe.sql', '--checkpoint-dir', 'ck');
  assert.notEqual(run.status, 0, 'the ClickHouse sink cannot connect');
  assert.match(run.stderr, /clickhouse sink 'ch'.*cannot reach the server/);

  const genFiles = filesUnder(join(dir, 'gen'));
  const leaks: string[] = [];
  for (const [cmd, r] of runs) {
    for (const [name, value] of Object.entries(S)) {
      if (r.stdout.includes(value)) leaks.push(`stdout of 'pipec ${cmd}' holds ${name}`);
      if (r.stderr.includes(value)) leaks.push(`stderr of 'pipec ${cmd}' holds ${name}`);
    }
  }
  const written = filesUnder(dir).filter((f) => relative(dir, f) !== 'pipec.yaml');
  // (The run fails before its first checkpoint; a checkpoint written under ck/ would be scanned too.)
  assert.ok(genFiles.length >= 8, `generated files were written: ${written.map((f) => relative(dir, f)).join(', ')}`);
  for (const f of written) {
    const bytes = readFileSync(f);
    for (const [name, value] of Object.entries(S)) if (bytes.includes(value)) leaks.push(`${relative(dir, f)} holds ${name}`);
  }
  assert.deepEqual(leaks, []);

  // The run got the values (it tried to connect), and the literal kept its text as written.
  const planTxt = readFileSync(join(dir, 'gen', 'run', 'plan.txt'), 'utf8');
  assert.match(planTxt, /tag = '\$\{PIPEC_T_TOKEN\}'/);
  assert.match(planTxt, /page <> '\$\{PIPEC_T_TOKEN\}'/);
  assert.match(runs.find(([c]) => c === 'check all.pipe.sql run.pipe.sql')![1].stderr, /warning\[env-in-sql-literal\]/);
});
