/**
 * The behaviour every Blobs adapter must show (packages/core/src/ports/blobs.ts). Each
 * adapter's test file calls blobsConformance() with a factory; each test gets a fresh,
 * empty store.
 */
import { afterEach, beforeEach, describe, expect, it as vitestIt } from 'vitest';
import type { Blobs } from '@svc/core/ports/blobs';

export interface BlobsFixture {
  blobs: Blobs;
  cleanup(): Promise<void>;
}

/** What an adapter may report for an object stored without a content type. */
const GENERIC_CONTENT_TYPES = [undefined, 'application/octet-stream', 'binary/octet-stream'];

const text = (body: Uint8Array) => new TextDecoder().decode(body);

export function blobsConformance(name: string, make: () => Promise<BlobsFixture>): void {
  const it = vitestIt;

  describe(`Blobs conformance: ${name}`, () => {
    let fixture: BlobsFixture | undefined;

    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture?.cleanup();
      fixture = undefined;
    });

    const blobs = (): Blobs => {
      if (!fixture) throw new Error('no blob store: the fixture factory failed');
      return fixture.blobs;
    };

    describe('put and get', () => {
      it('reads back a string body as UTF-8 bytes, with its content type', async () => {
        await blobs().put('reports/r1/index.html', '<h1>Grüße ✓</h1>', 'text/html; charset=utf-8');
        const got = await blobs().get('reports/r1/index.html');
        expect(got).toBeDefined();
        expect(got!.body).toBeInstanceOf(Uint8Array);
        expect(text(got!.body)).toBe('<h1>Grüße ✓</h1>');
        expect(got!.contentType).toBe('text/html; charset=utf-8');
      });

      it('reads back binary bytes exactly, every byte value included', async () => {
        const bytes = new Uint8Array(256 * 4).map((_, i) => i % 256);
        await blobs().put('screenshots/s.png', bytes, 'image/png');
        const got = await blobs().get('screenshots/s.png');
        expect(Buffer.from(got!.body).equals(Buffer.from(bytes))).toBe(true);
        expect(got!.contentType).toBe('image/png');
      });

      it('stores an empty body', async () => {
        await blobs().put('empty.txt', '', 'text/plain');
        const got = await blobs().get('empty.txt');
        expect(got).toBeDefined();
        expect(got!.body.length).toBe(0);
      });

      it('stores a body of a few megabytes', async () => {
        const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) % 251);
        await blobs().put('traces/t.zip', big, 'application/zip');
        const got = await blobs().get('traces/t.zip');
        expect(got!.body.length).toBe(big.length);
        expect(Buffer.from(got!.body).equals(Buffer.from(big))).toBe(true);
      });

      it('reports no specific content type when none was given', async () => {
        await blobs().put('raw.bin', new Uint8Array([1, 2, 3]));
        const got = await blobs().get('raw.bin');
        expect([...got!.body]).toEqual([1, 2, 3]);
        expect(GENERIC_CONTENT_TYPES).toContain(got!.contentType);
      });

      it('replaces the body of an existing key', async () => {
        await blobs().put('baselines/home.png', 'first', 'image/png');
        await blobs().put('baselines/home.png', 'second, longer than the first', 'image/png');
        expect(text((await blobs().get('baselines/home.png'))!.body)).toBe('second, longer than the first');
        expect(await blobs().list('baselines/')).toEqual(['baselines/home.png']);
      });

      it('replaces the content type along with the body', async () => {
        await blobs().put('report', '{}', 'application/json');
        await blobs().put('report', '<p></p>', 'text/html');
        expect((await blobs().get('report'))!.contentType).toBe('text/html');
      });

      it('forgets the old content type when a key is rewritten without one', async () => {
        await blobs().put('report', '{}', 'application/json');
        await blobs().put('report', new Uint8Array([0]));
        expect(GENERIC_CONTENT_TYPES).toContain((await blobs().get('report'))!.contentType);
      });

      it('keeps keys with spaces, unicode, plus signs and percent signs apart', async () => {
        const keys = ['odd/a b.txt', 'odd/ümlaut-ß.txt', 'odd/1+1=2.txt', 'odd/100%.txt', 'odd/a%20b.txt', 'odd/emoji-🙂.txt'];
        for (const key of keys) await blobs().put(key, `body of ${key}`, 'text/plain');
        for (const key of keys) expect(text((await blobs().get(key))!.body)).toBe(`body of ${key}`);
        expect(await blobs().list('odd/')).toEqual([...keys].sort());
      });

      it('keeps nested keys and their parent-like siblings apart', async () => {
        await blobs().put('runs/r1', 'file', 'text/plain');
        await blobs().put('runs/r1x/a', 'nested', 'text/plain');
        expect(text((await blobs().get('runs/r1'))!.body)).toBe('file');
        expect(text((await blobs().get('runs/r1x/a'))!.body)).toBe('nested');
      });
    });

    describe('absent keys', () => {
      it('gets undefined for a key never written', async () => {
        expect(await blobs().get('nothing/here.png')).toBeUndefined();
      });

      it('gets undefined for a prefix of a stored key', async () => {
        await blobs().put('runs/r1/step-1.png', 'x', 'image/png');
        expect(await blobs().get('runs/r1')).toBeUndefined();
      });
    });

    describe('delete', () => {
      it('removes the key from get and list', async () => {
        await blobs().put('runs/r1/a.png', 'a', 'image/png');
        await blobs().put('runs/r1/b.png', 'b', 'image/png');
        await blobs().delete('runs/r1/a.png');
        expect(await blobs().get('runs/r1/a.png')).toBeUndefined();
        expect(await blobs().list('runs/r1/')).toEqual(['runs/r1/b.png']);
      });

      it('is a no-op for a key that does not exist', async () => {
        await expect(blobs().delete('never/written.txt')).resolves.toBeUndefined();
      });

      it('lets a deleted key be written again', async () => {
        await blobs().put('k.txt', 'one', 'text/plain');
        await blobs().delete('k.txt');
        await blobs().put('k.txt', 'two', 'text/plain');
        expect(text((await blobs().get('k.txt'))!.body)).toBe('two');
      });
    });

    describe('list', () => {
      it('returns the keys under a prefix, sorted, and nothing outside it', async () => {
        for (const key of ['runs/r2/b.png', 'runs/r1/b.png', 'runs/r1/a.png', 'runs/r10/a.png', 'reports/x.html']) {
          await blobs().put(key, key, 'application/octet-stream');
        }
        expect(await blobs().list('runs/r1/')).toEqual(['runs/r1/a.png', 'runs/r1/b.png']);
        expect(await blobs().list('runs/r1')).toEqual(['runs/r1/a.png', 'runs/r1/b.png', 'runs/r10/a.png']);
        expect(await blobs().list('runs/')).toEqual(['runs/r1/a.png', 'runs/r1/b.png', 'runs/r10/a.png', 'runs/r2/b.png']);
      });

      it('lists every key for the empty prefix', async () => {
        await blobs().put('b/2', '2', 'text/plain');
        await blobs().put('a/1', '1', 'text/plain');
        await blobs().put('c', '3', 'text/plain');
        expect(await blobs().list('')).toEqual(['a/1', 'b/2', 'c']);
      });

      it('returns an empty list when nothing matches', async () => {
        expect(await blobs().list('nothing/')).toEqual([]);
        await blobs().put('something/a', 'a', 'text/plain');
        expect(await blobs().list('nothing/')).toEqual([]);
      });

      it('returns every key of a prefix holding many keys', async () => {
        const keys = Array.from({ length: 57 }, (_, i) => `many/${String(i).padStart(3, '0')}.json`);
        await Promise.all(keys.map((key) => blobs().put(key, key, 'application/json')));
        await blobs().put('many-not/x.json', 'x', 'application/json');
        expect(await blobs().list('many/')).toEqual(keys);
      });
    });

    describe('listModified', () => {
      it('lists the same keys as list(), each with when it was last written', async () => {
        const before = Date.now();
        for (const key of ['old/b.png', 'old/a.png', 'other/c.png']) await blobs().put(key, key, 'image/png');
        const entries = await blobs().listModified('old/');
        expect(entries.map((e) => e.key)).toEqual(await blobs().list('old/'));
        expect(entries.map((e) => e.key)).toEqual(['old/a.png', 'old/b.png']);
        for (const e of entries) {
          const modified = Date.parse(e.modified);
          // S3 keeps whole seconds; a clock skew of a second either way is the adapter's, not a bug.
          expect(modified).toBeGreaterThanOrEqual(before - 2000);
          expect(modified).toBeLessThanOrEqual(Date.now() + 2000);
        }
      });

      it('leaves out deleted objects', async () => {
        await blobs().put('gone/x', 'x', 'text/plain');
        await blobs().delete('gone/x');
        expect(await blobs().listModified('gone/')).toEqual([]);
      });
    });
  });
}
