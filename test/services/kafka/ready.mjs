// Readiness probe for the test Kafka broker: a real client round trip (create a topic, then describe it).
// Usage: node ready.mjs 127.0.0.1:PORT — exits 0 when the broker serves metadata for the new topic.
import { Kafka, logLevel } from 'kafkajs';

const broker = process.argv[2];
const kafka = new Kafka({ clientId: 'pipec-ready', brokers: [broker], logLevel: logLevel.NOTHING, connectionTimeout: 2000, requestTimeout: 5000, retry: { retries: 0 } });
const admin = kafka.admin();
const topic = '__pipec_ready';
try {
  await admin.connect();
  const topics = await admin.listTopics();
  if (!topics.includes(topic)) {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true, timeout: 5000 });
  }
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const part = meta.topics[0]?.partitions[0];
  if (!part || part.leader < 0) throw new Error(`no leader for ${topic}`);
  process.stdout.write(`ready: ${topic} leader ${part.leader}\n`);
  await admin.disconnect();
  process.exit(0);
} catch (err) {
  process.stderr.write(`not ready: ${err instanceof Error ? err.message : String(err)}\n`);
  await admin.disconnect().catch(() => undefined);
  process.exit(1);
}
