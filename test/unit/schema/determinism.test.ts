// Loaded schemas are plain, serializable data (they go into the IR) and identical across loads
// (generated artifacts must be byte-identical across builds).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load, specsDir } from './helpers.ts';

for (const ref of ['file:schemas/orders.avsc', 'file:schemas/clicks.proto#Click', 'file:schemas/sensor.schema.json']) {
  test(`${ref}: plain data, same text on every load`, async () => {
    const a = await load(specsDir, ref);
    const b = await load(specsDir, ref);
    assert.ok(a.schema && b.schema);
    assert.deepEqual(JSON.parse(JSON.stringify(a.schema)), a.schema);
    assert.equal(a.schema.canonicalText, b.schema.canonicalText);
    assert.deepEqual(a.schema, b.schema);
  });
}

test('the Protobuf canonical text names the message and holds its imports', async () => {
  const { schema } = await load(specsDir, 'file:schemas/clicks.proto#Click');
  const canon = JSON.parse(schema!.canonicalText);
  assert.equal(canon.message, 'shop.web.v1.Click');
  assert.ok(canon.root.nested.google.nested.protobuf.nested.Timestamp, 'Timestamp is embedded for decoders');
  assert.deepEqual(Object.keys(canon.root.nested.shop.nested.web.nested.v1.nested.Click.fields).slice(0, 3), ['user_id', 'session_id', 'session_seq']);
});
