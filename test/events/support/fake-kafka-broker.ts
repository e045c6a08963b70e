/**
 * A single-node Kafka broker that speaks just enough of the wire protocol for a kafkajs
 * producer: ApiVersions, Metadata v1, InitProducerId v0 and Produce v3 (record batches,
 * decoded with kafkajs's own batch decoder, gzip included). It records every produce
 * request — acks, producer id, compression, records with keys and headers — so tests
 * check what an idempotent gzip producer really puts on the wire.
 */
import { createRequire } from 'node:module';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
const Decoder = require('kafkajs/src/protocol/decoder');
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');

export interface ProducedBatch {
  topic: string;
  partition: number;
  acks: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  /** attributes & 0x07: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd */
  compression: number;
  records: { key: string | null; value: string; headers: Record<string, string>; timestamp: string }[];
}

const API = { Produce: 0, Metadata: 3, ApiVersions: 18, InitProducerId: 22 } as const;
const SUPPORTED: [number, number, number][] = [[API.Produce, 3, 3], [API.Metadata, 1, 1], [API.ApiVersions, 0, 2], [API.InitProducerId, 0, 0]];

class Out {
  private parts: Buffer[] = [];
  int8(v: number) { const b = Buffer.alloc(1); b.writeInt8(v); this.parts.push(b); return this; }
  int16(v: number) { const b = Buffer.alloc(2); b.writeInt16BE(v); this.parts.push(b); return this; }
  int32(v: number) { const b = Buffer.alloc(4); b.writeInt32BE(v); this.parts.push(b); return this; }
  int64(v: bigint) { const b = Buffer.alloc(8); b.writeBigInt64BE(v); this.parts.push(b); return this; }
  string(v: string | null) {
    if (v === null) return this.int16(-1);
    const s = Buffer.from(v, 'utf8');
    this.int16(s.length);
    this.parts.push(s);
    return this;
  }
  array<T>(items: T[], write: (o: Out, item: T) => void) { this.int32(items.length); for (const i of items) write(this, i); return this; }
  buffer() { return Buffer.concat(this.parts); }
}

export async function startFakeKafkaBroker(opts: { partitions?: number } = {}) {
  const partitions = opts.partitions ?? 6;
  const produced: ProducedBatch[] = [];
  const apiCalls: { apiKey: number; apiVersion: number }[] = [];
  const offsets = new Map<string, bigint>();
  let port = 0;
  let nextProducerId = 4000n;

  async function handle(apiKey: number, apiVersion: number, body: any): Promise<Buffer> {
    apiCalls.push({ apiKey, apiVersion });
    switch (apiKey) {
      case API.ApiVersions: {
        const o = new Out().int16(0).array(SUPPORTED, (w, [k, min, max]) => w.int16(k).int16(min).int16(max));
        if (apiVersion >= 1) o.int32(0);
        return o.buffer();
      }
      case API.Metadata: {
        const count = body.readInt32();
        const topics: string[] = [];
        for (let i = 0; i < count; i++) topics.push(body.readString());
        return new Out()
          .array([0], (w) => w.int32(0).string('127.0.0.1').int32(port).string(null))
          .int32(0) // controller id
          .array(topics, (w, t) =>
            w.int16(0).string(t).int8(0).array([...Array(partitions).keys()], (p, i) => p.int16(0).int32(i).int32(0).array([0], (r, n) => r.int32(n)).array([0], (r, n) => r.int32(n))),
          )
          .buffer();
      }
      case API.InitProducerId: {
        body.readString(); // transactional id (null)
        body.readInt32(); // transaction timeout
        return new Out().int32(0).int16(0).int64(nextProducerId++).int16(0).buffer();
      }
      case API.Produce: {
        body.readString(); // transactional id
        const acks = body.readInt16();
        body.readInt32(); // timeout
        const responses: { topic: string; parts: { partition: number; base: bigint }[] }[] = [];
        const topicCount = body.readInt32();
        for (let t = 0; t < topicCount; t++) {
          const topic = body.readString();
          const parts: { partition: number; base: bigint }[] = [];
          const partCount = body.readInt32();
          for (let p = 0; p < partCount; p++) {
            const partition = body.readInt32();
            const bytes: Buffer = body.readBytes();
            // Batch header: firstOffset(8) length(4) leaderEpoch(4) magic(1) crc(4) attributes(2)
            const attributes = bytes.readInt16BE(21);
            const batch = await decodeRecordBatch(new Decoder(bytes));
            const key = `${topic}/${partition}`;
            const base = offsets.get(key) ?? 0n;
            offsets.set(key, base + BigInt(batch.records.length));
            produced.push({
              topic, partition, acks,
              producerId: String(batch.producerId), producerEpoch: batch.producerEpoch, firstSequence: batch.firstSequence,
              compression: attributes & 0x07,
              records: batch.records.map((r: any) => ({
                key: r.key ? r.key.toString('utf8') : null,
                value: r.value.toString('utf8'),
                headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, (v as Buffer).toString('utf8')])),
                timestamp: String(r.timestamp),
              })),
            });
            parts.push({ partition, base });
          }
          responses.push({ topic, parts });
        }
        return new Out()
          .array(responses, (w, r) => w.string(r.topic).array(r.parts, (pw, p) => pw.int32(p.partition).int16(0).int64(p.base).int64(-1n)))
          .int32(0)
          .buffer();
      }
      default:
        throw new Error(`fake broker: unsupported api ${apiKey}`);
    }
  }

  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = Buffer.alloc(0);
    let chain = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = pending.readInt32BE(0);
        const frame = pending.subarray(4, 4 + size);
        pending = pending.subarray(4 + size);
        chain = chain.then(async () => {
          const d = new Decoder(frame);
          const apiKey = d.readInt16();
          const apiVersion = d.readInt16();
          const correlationId = d.readInt32();
          d.readString(); // client id
          const body = await handle(apiKey, apiVersion, d);
          const header = Buffer.alloc(8);
          header.writeInt32BE(body.length + 4, 0);
          header.writeInt32BE(correlationId, 4);
          socket.write(Buffer.concat([header, body]));
        }).catch((err: Error) => void socket.destroy(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    broker: `127.0.0.1:${port}`,
    produced,
    apiCalls,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

