// Which tables drop a re-inserted batch (tableDedup), decided from the engine, the CREATE
// statement and the server's MergeTree defaults as system.tables / system.merge_tree_settings
// report them (texts as ClickHouse 26.x and 18.16 print them). No server needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableDedup } from '../../../targets/runtime/lib/clickhouse/dedup-check.ts';

const modern = { non_replicated_deduplication_window: '0', replicated_deduplication_window: '10000', replicated_deduplication_window_seconds: '3600' };

test('MergeTree: only with non_replicated_deduplication_window > 0 (table setting or server default)', () => {
  const withWindow = tableDedup('d.t', 'MergeTree', 'CREATE TABLE d.t (`id` UInt64) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100, index_granularity = 8192', modern);
  assert.deepEqual({ d: withWindow.deduplicates, w: withWindow.window }, { d: true, w: 100 });
  const plain = tableDedup('d.t', 'MergeTree', 'CREATE TABLE d.t (`id` UInt64) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 8192', modern);
  assert.deepEqual({ d: plain.deduplicates, w: plain.window }, { d: false, w: 0 });
  assert.match(plain.reason, /ALTER TABLE d\.t MODIFY SETTING non_replicated_deduplication_window = 100/);
  // A server whose config sets the window for every MergeTree.
  assert.equal(tableDedup('d.t', 'ReplacingMergeTree', 'CREATE TABLE d.t (`id` UInt64) ENGINE = ReplacingMergeTree ORDER BY id', { ...modern, non_replicated_deduplication_window: '50' }).deduplicates, true);
  // 18.16 knows no such setting: nothing deduplicates.
  assert.equal(tableDedup('d.t', 'MergeTree', 'CREATE TABLE d.t (id UInt64) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 8192', { replicated_deduplication_window: '100' }).deduplicates, false);
});

test('Replicated* and Shared* deduplicate unless the window is 0; other engines cannot be told', () => {
  const r = tableDedup('d.t', 'ReplicatedMergeTree', "CREATE TABLE d.t (`id` UInt64) ENGINE = ReplicatedMergeTree('/t', 'r1') ORDER BY id", modern);
  assert.deepEqual({ d: r.deduplicates, w: r.window }, { d: true, w: 10000 });
  assert.match(r.reason, /replicated_deduplication_window_seconds = 3600/);
  assert.equal(tableDedup('d.t', 'SharedMergeTree', 'CREATE TABLE d.t (`id` UInt64) ENGINE = SharedMergeTree ORDER BY id', modern).deduplicates, true);
  const off = tableDedup('d.t', 'ReplicatedReplacingMergeTree', "CREATE TABLE d.t (`id` UInt64) ENGINE = ReplicatedReplacingMergeTree('/t', 'r1') ORDER BY id SETTINGS replicated_deduplication_window = 0", modern);
  assert.equal(off.deduplicates, false);
  const dist = tableDedup('d.t', 'Distributed', "CREATE TABLE d.t (`id` UInt64) ENGINE = Distributed('c', 'd', 't_local')", modern);
  assert.deepEqual({ d: dist.deduplicates, w: dist.window }, { d: null, w: null });
});
