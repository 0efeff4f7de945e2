// The connector descriptors' option docs, for `pipec explain <connector>[.<option>]`: the CLI
// calls only src/build, never src/connectors directly (layering, test/unit/layering.test.ts).
export { explainConnector, explainableConnectorTopics } from '../connectors/explain.ts';
