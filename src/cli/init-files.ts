// The files `pipec init` writes: a datagen → file spec that runs with no services, its test,
// a pipec.yaml with a local profile, a CI workflow running check, test and build --check, and
// .gitignore entries for what runs and bundles leave behind.

export const INIT_FILES: Record<string, string> = {
  'specs/page_counts.pipe.sql': `-- Page views per page per minute: synthetic events from datagen, counted in one-minute
-- windows, written as NDJSON. Run it: \`pipec run specs/page_counts.pipe.sql\`.
PIPELINE page_counts WITH (
  checkpoint_interval = '10 s'
);

CREATE SOURCE page_views (
  view_id BIGINT NOT NULL,
  page    STRING NOT NULL,
  view_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR view_ts AS view_ts - INTERVAL '2' SECOND
) WITH (
  connector           = 'datagen',
  total_rows          = 1000,
  seed                = 1,
  fields.view_id.kind = 'sequence',
  fields.page.kind    = 'choice',
  fields.page.values  = '/home,/search,/cart',
  fields.view_ts.kind = 'sequence',
  fields.view_ts.min  = '2026-01-01 00:00:00',
  fields.view_ts.step = '100 ms'
);

-- pipec:allow hot-partition-group-key
CREATE VIEW page_counts_1m AS
SELECT page, window_start, window_end, COUNT(*) AS views
FROM TUMBLE(page_views, view_ts, INTERVAL '1' MINUTE)
GROUP BY page, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK page_counts_file FROM page_counts_1m WITH (
  connector = 'file',
  path      = 'out/page_counts_1m.ndjson',
  format    = 'ndjson'
);
`,
  'specs/page_counts.pipe.test.yaml': `# Tests of page_counts.pipe.sql: \`pipec test\` (the format is in docs/testing.md of pipec).
spec: page_counts.pipe.sql
tests:
  - name: views per page per minute close when the watermark passes the minute
    steps:
      - rows: page_views
        data:
          - { view_id: 1, page: /home, view_ts: '2026-01-01 00:00:05' }
          - { view_id: 2, page: /home, view_ts: '2026-01-01 00:00:40' }
          - { view_id: 3, page: /cart, view_ts: '2026-01-01 00:00:50' }
          # Watermark 00:01:01 (2 s delay): the first minute closes.
          - { view_id: 4, page: /home, view_ts: '2026-01-01 00:01:03' }
      # Too late for the closed minute: dropped (ON LATE DROP).
      - rows: page_views
        data:
          - { view_id: 5, page: /search, view_ts: '2026-01-01 00:00:30' }
    expect:
      page_counts_file:
        rows:
          - { page: /home, window_start: '2026-01-01 00:00:00', window_end: '2026-01-01 00:01:00', views: 2 }
          - { page: /cart, window_start: '2026-01-01 00:00:00', window_end: '2026-01-01 00:01:00', views: 1 }

  - name: end of input closes the last minute
    steps:
      - rows: page_views
        data:
          - { view_id: 1, page: /search, view_ts: '2026-01-01 00:05:00' }
      - end_of_input
    expect:
      page_counts_file:
        rows:
          - { page: /search, window_start: '2026-01-01 00:05:00', window_end: '2026-01-01 00:06:00', views: 1 }
`,
  'pipec.yaml': `# pipec project settings (LANGUAGE.md "Profiles"). \`--profile NAME\` picks a profile;
# \`default_profile\` applies otherwise, and the environment overrides any value. Values
# resolve \`\${NAME}\` in specs; generated files never contain them.
specs: [specs]
default_profile: local
profiles:
  local:
    PIPEC_ENV: local
`,
  '.github/workflows/pipec.yml': `# Checks the pipelines on every push: diagnostics (warnings fail), the tests, and that
# generated/ is up to date with the specs (run \`pipec build\` and commit when it is not).
name: pipec
on: [push, pull_request]
jobs:
  pipec:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - run: npm install --global pipec
      - run: pipec check --deny-warnings
      - run: pipec test --reporter junit > pipec-test.xml
      - run: pipec build --check
`,
};

/** Lines `pipec init` makes sure .gitignore has (an existing .gitignore is added to, not replaced). */
export const GITIGNORE_LINES = ['# pipec: run output, checkpoints, dead letters and bundles', 'out/', 'dist/', '*.dead-letters.ndjson', '.pipec/'];
