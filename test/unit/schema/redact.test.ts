// Credentials never reach a message: URL userinfo and DSN passwords in every spelling; and the
// libpq key=value DSN form is understood (pg itself only parses URLs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectionConfig } from '../../../src/schema/postgres-catalog.ts';
import { redactDsn, redactUrl } from '../../../targets/runtime/lib/shared/redact.ts';

test('registry URLs lose their whole userinfo (an API key is a credential too)', () => {
  assert.equal(redactUrl('https://KEY:SECRET@psrc-1.example.cloud/'), 'https://***@psrc-1.example.cloud/');
  assert.equal(redactUrl('http://127.0.0.1:8081'), 'http://127.0.0.1:8081');
  assert.equal(redactUrl('Failed to parse URL from http://a:b@x y'), 'Failed to parse URL from http://***@x y');
});

test('DSN passwords are hidden in URL, query and key=value forms; the user stays', () => {
  assert.equal(redactDsn('postgres://pipec:s3cret@db:5432/shop'), 'postgres://pipec:***@db:5432/shop');
  assert.equal(redactDsn('postgresql://db/shop?user=pipec&password=s3cret&sslmode=require'), 'postgresql://db/shop?user=pipec&password=***&sslmode=require');
  assert.equal(redactDsn("host=db user=pipec password='two words' dbname=shop"), 'host=db user=pipec password=*** dbname=shop');
  assert.equal(redactDsn('password=s3cret host=db'), 'password=*** host=db');
  assert.equal(redactDsn('postgres://pipec@db/shop'), 'postgres://pipec@db/shop');
});

test('key=value DSNs become pg client settings', () => {
  assert.deepEqual(connectionConfig("host=db.local port=6543 dbname=shop user=pipec password='it\\'s secret' sslmode=disable"), {
    host: 'db.local',
    port: 6543,
    database: 'shop',
    user: 'pipec',
    password: "it's secret",
    ssl: false,
  });
  assert.deepEqual(connectionConfig('postgres://u@h/db'), { connectionString: 'postgres://u@h/db' });
});
