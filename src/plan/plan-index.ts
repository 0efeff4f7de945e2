// The plan graph queries under their former name, for the checker's scale-out pass
// (src/check/scale-out.ts); everything lives in graph.ts.
export { PlanIndex, columnCardinality, scaleOutOf, type ScaleOut, type SourceColumn } from './graph.ts';
