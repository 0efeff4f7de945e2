// The NDJSON reader's read size (file-source.ts readChunkBytes): 1 MiB while the source has
// few files, smaller as it has more, never below 64 KiB, and the buffers of all its files
// together within 16 MiB whenever 64 KiB each allows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readChunkBytes } from '../../../targets/runtime/lib/io/file-source.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

test('1 MiB for up to 16 files, then a share of 16 MiB in 64 KiB steps, at least 64 KiB', () => {
  assert.equal(readChunkBytes(1), MiB);
  assert.equal(readChunkBytes(16), MiB);
  assert.equal(readChunkBytes(17), 960 * KiB);
  assert.equal(readChunkBytes(100), 128 * KiB);
  assert.equal(readChunkBytes(256), 64 * KiB);
  assert.equal(readChunkBytes(10_000), 64 * KiB);
  for (let files = 1; files <= 2000; files++) {
    const each = readChunkBytes(files);
    assert.equal(each % (64 * KiB), 0);
    assert.ok(each * files <= Math.max(16 * MiB, files * 64 * KiB), `${files} files × ${each}`);
  }
});
