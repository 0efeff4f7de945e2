// The runtime target's in-process entry point, for `pipec run`: the CLI calls only src/build,
// never a target directly (layering, test/unit/layering.test.ts).
export { runPipeline } from '../../targets/runtime/index.ts';
