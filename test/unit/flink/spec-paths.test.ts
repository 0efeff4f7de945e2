// Relative paths in the Flink script: the runtime resolves a spec's relative paths against the
// spec's folder, Flink against its own working directory, so the script must anchor them, the
// same way on every machine (no absolute path of the build machine in generated/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { flinkPath } from '../../../targets/flink/spec-paths.ts';
import { pipec } from '../../cli/run-cli.ts';

test('relative paths get the ${PIPEC_SPEC_DIR} prefix; absolute paths, URIs and ${VAR} paths stay', () => {
  assert.equal(flinkPath('in/events.ndjson'), '${PIPEC_SPEC_DIR}/in/events.ndjson');
  assert.equal(flinkPath('./out/../out/x.ndjson'), '${PIPEC_SPEC_DIR}/out/x.ndjson');
  assert.equal(flinkPath('.'), '${PIPEC_SPEC_DIR}');
  assert.equal(flinkPath('/data/x.ndjson'), '/data/x.ndjson');
  assert.equal(flinkPath('s3://bucket/wh'), 's3://bucket/wh');
  assert.equal(flinkPath('file:///data/wh'), 'file:///data/wh');
  assert.equal(flinkPath('${PIPEC_WAREHOUSE}/t'), '${PIPEC_WAREHOUSE}/t');
  assert.equal(flinkPath(''), '');
});

test('pipec build --target flink writes the same script from two folders, with relative paths anchored', () => {
  const spec = `CREATE SOURCE s (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'file', path = 'in/s.ndjson', format = 'ndjson');
CREATE SINK o FROM s WITH (connector = 'file', path = 'out/o.ndjson', format = 'ndjson');
CREATE SINK a FROM s WITH (connector = 'file', path = '/abs/a.ndjson', format = 'ndjson');
`;
  const scripts = [0, 1].map(() => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pipec-flink-paths-'));
    writeFileSync(path.join(dir, 'p.pipe.sql'), spec);
    const r = pipec(['build', 'p.pipe.sql', '--target', 'flink', '--out', 'generated'], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(path.join(dir, 'generated', 'p', 'flink', 'pipeline.sql'), 'utf8');
  });
  assert.equal(scripts[0], scripts[1], 'byte-identical from two folders');
  const sql = scripts[0]!;
  assert.match(sql, /'path' = '\$\{PIPEC_SPEC_DIR\}\/in\/s\.ndjson'/);
  assert.match(sql, /'path' = '\$\{PIPEC_SPEC_DIR\}\/out\/o\.ndjson'/);
  assert.match(sql, /'path' = '\/abs\/a\.ndjson'/);
  assert.match(sql, /^-- \$\{PIPEC_SPEC_DIR\}: the folder of p\.pipe\.sql where Flink runs/m, 'the header says what to set');
  assert.doesNotMatch(sql, new RegExp(tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'no absolute path of the build machine');
});
