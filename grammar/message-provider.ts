// The parser's error message provider: it records only which token types were expected, so
// the front end (src/syntax/sql/parse-errors.ts) can word the message with the statement at hand.
import type { IParserErrorMessageProvider } from 'chevrotain';

/**
 * The provider only records which token types were expected (as JSON); wording happens in
 * `reportParseError`, which knows the statement and can ask for a complete expected set.
 */
export const recordingMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected }) => JSON.stringify([expected.name]),
  buildNotAllInputParsedMessage: () => JSON.stringify(['Semicolon']),
  buildNoViableAltMessage: ({ expectedPathsPerAlt }) =>
    JSON.stringify(expectedPathsPerAlt.flatMap((alt) => alt.map((path) => path[0]?.name ?? 'EOF'))),
  buildEarlyExitMessage: ({ expectedIterationPaths }) => JSON.stringify(expectedIterationPaths.map((path) => path[0]?.name ?? 'EOF')),
};
