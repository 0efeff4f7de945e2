// Token categories (grammar/lexer.ts): keywords get their categories after createToken, and the
// lexer built in lexer.ts completes the category maps. What the grammar relies on: every keyword
// is an option name (AnyWord), soft keywords are names (IdentCat) and reserved ones are not,
// AND/OR are binary operators and NOT a prefix operator, and the words are lexed as their
// keyword token (not as Identifier), in any case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenMatcher } from 'chevrotain';
import { AnyWord, ArithOp, BinOp, IdentCat, Identifier, KW, PrefixOp, RESERVED_WORDS, pipeLexer, type KeywordName } from '../../../grammar/lexer.ts';

const lexOne = (text: string) => {
  const r = pipeLexer.tokenize(text);
  assert.deepEqual(r.errors, []);
  assert.equal(r.tokens.length, 1, text);
  return r.tokens[0]!;
};

test('every keyword lexes as itself and is an AnyWord; IdentCat exactly when it is not reserved', () => {
  const words = Object.keys(KW) as KeywordName[];
  assert.ok(words.length > 80, 'the keyword list is read');
  for (const word of words) {
    const token = lexOne(word.toLowerCase());
    assert.equal(token.tokenType, KW[word], word);
    assert.ok(tokenMatcher(token, AnyWord), `${word} is an option name`);
    assert.equal(tokenMatcher(token, IdentCat), !RESERVED_WORDS.has(word.toLowerCase()), `${word}: IdentCat iff soft`);
  }
});

test('hand-picked keywords: soft, reserved and the keyword operators', () => {
  const key = lexOne('KEY');
  assert.ok(tokenMatcher(key, IdentCat) && tokenMatcher(key, AnyWord) && !tokenMatcher(key, BinOp));
  const select = lexOne('Select');
  assert.ok(!tokenMatcher(select, IdentCat) && tokenMatcher(select, AnyWord));
  for (const op of ['and', 'OR']) {
    const t = lexOne(op);
    assert.ok(tokenMatcher(t, BinOp) && !tokenMatcher(t, ArithOp) && !tokenMatcher(t, PrefixOp) && !tokenMatcher(t, IdentCat), op);
  }
  const not = lexOne('not');
  assert.ok(tokenMatcher(not, PrefixOp) && !tokenMatcher(not, BinOp));
  // A word starting with a keyword is a plain name.
  const keys = lexOne('keys');
  assert.equal(keys.tokenType, Identifier);
  assert.ok(tokenMatcher(keys, IdentCat) && tokenMatcher(keys, AnyWord));
});
