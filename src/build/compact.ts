// The Iceberg target's compaction entry point, for `pipec compact`: the CLI calls only
// src/build, never a target directly (layering, test/unit/layering.test.ts).
export { runCompaction } from '../../targets/iceberg/compact.ts';
