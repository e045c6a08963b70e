import { describe, expect, it } from 'vitest';
import { localEmbedder, type Embedder } from '../healing/service/embedder.ts';
import { SemanticSearchQuery } from '../contracts/semantic-search.ts';
import { corpusOf, lexicalScore, snippetOf } from './lexical.ts';
import { EmbeddingCache } from './embedding-cache.ts';
import { rank, providerOf, type Candidate } from './rank.ts';
import { allot, describeStep } from './candidates.ts';

const test = (id: string, text: string): Candidate => ({ kind: 'test', id, title: id, text, project_id: null, links: {} });

const suite: Candidate[] = [
  test('login', 'user logs in. Sign in with email and password. steps: goto /login; fill #email "ada@example.com"; fill #password {{secrets.PASSWORD}}; click "text=Sign in". checks: url contains /account'),
  test('checkout', 'checkout applies the coupon. steps: goto /cart; fill #coupon SAVE10; click #apply; click #pay. checks: text .total contains 9.00'),
  test('search', 'product search. steps: goto /; fill input[name=q] shoes; press Enter. checks: count .product min 1'),
  test('items api', 'items list. steps: request /api/items. checks: status equals 200'),
  test('profile', 'edit profile picture. steps: goto /profile; upload #avatar avatar.png; click "text=Save". checks: visible img.avatar'),
];

describe('semantic search ranking with the local embedder', () => {
  it('ranks the sign-in test first for "sign in with email", and unrelated tests low or not at all', async () => {
    const { hits, embedder } = await rank('sign in with email', suite, { embedder: localEmbedder(), cache: new EmbeddingCache(), limit: 10 });
    expect(embedder).toEqual({ provider: 'local', model: 'svc-local-hash-v1' });
    expect(hits[0].id).toBe('login');
    expect(hits[0].score).toBeGreaterThan(0.4);
    for (const h of hits.slice(1)) expect(h.score).toBeLessThan(hits[0].score / 2);
    expect(hits.map((h) => h.id)).not.toContain('items api');
  });

  it('blends: meaning alone and words alone both rank, a text strong on both wins', async () => {
    // "log in" never appears verbatim in the login test, but the local vectors share its words' trigrams.
    const meaning = await rank('logging in to my account', suite, { embedder: localEmbedder(), cache: new EmbeddingCache(), limit: 3 });
    expect(meaning.hits[0].id).toBe('login');
    // An exact identifier wins even among texts about the same page.
    const ids = [...suite, test('coupon twin', 'checkout removes the coupon. steps: goto /cart; click #remove-coupon')];
    const exact = await rank('#apply', ids, { embedder: localEmbedder(), cache: new EmbeddingCache(), limit: 3 });
    expect(exact.hits[0].id).toBe('checkout');
    expect(exact.hits[0].score).toBeGreaterThan(exact.hits[1]?.score ?? 0);
  });

  it('falls back to words only, saying so and why, when the embedder fails', async () => {
    const down: Embedder = { model: 'openai:text-embedding-3-small', embed: async () => { throw new Error('openai embeddings: 503 Service Unavailable'); } };
    const { hits, embedder } = await rank('coupon SAVE10', suite, { embedder: down, cache: new EmbeddingCache(), limit: 5 });
    expect(embedder).toMatchObject({ provider: 'openai', fallback: true });
    expect(embedder.reason).toContain('503 Service Unavailable');
    expect(hits[0]).toMatchObject({ id: 'checkout', score: 1 });
    // Words only: a text sharing no word with the query is not listed.
    expect(hits.map((h) => h.id)).toEqual(['checkout']);
  });

  it('returns nothing for a query about nothing stored', async () => {
    const { hits } = await rank('quarterly tax filing spreadsheet', suite, { embedder: localEmbedder(), cache: new EmbeddingCache(), limit: 10 });
    expect(hits).toEqual([]);
  });
});

describe('lexical score', () => {
  const corpus = corpusOf(suite.map((c) => c.text).concat('status equals 500'));
  it('keeps digits: an error code matches itself, not another code', () => {
    expect(lexicalScore('200', suite[3].text, corpus)).toBe(1);
    expect(lexicalScore('status 404', suite[3].text, corpus)).toBeLessThan(0.5);
  });
  it('weighs rare words above common ones', () => {
    const withRare = lexicalScore('goto coupon', suite[1].text, corpus);
    const withCommon = lexicalScore('goto coupon', suite[0].text, corpus);
    expect(withRare).toBeGreaterThan(0.7);
    expect(withCommon).toBeLessThan(0.3);
  });
  it('cuts a snippet around the first query word', () => {
    const long = `${'lorem ipsum '.repeat(40)}the coupon field rejects SAVE10 ${'dolor sit '.repeat(40)}`;
    const s = snippetOf(long, 'coupon', 120);
    expect(s).toContain('coupon field rejects SAVE10');
    expect(s.startsWith('…')).toBe(true);
  });
});

describe('embedding cache', () => {
  it('embeds only texts it has not seen, and drops the least recently used', async () => {
    const cache = new EmbeddingCache(2);
    const e = localEmbedder();
    expect((await cache.embed(e, ['a b', 'c d'])).embedded).toBe(2);
    const again = await cache.embed(e, ['c d', 'a b']);
    expect(again.embedded).toBe(0);
    expect(Array.from(again.vectors[1])).toEqual(Array.from(Float32Array.from((await e.embed(['a b']))[0])));
    expect((await cache.embed(e, ['e f'])).embedded).toBe(1); // evicts "c d", used least recently
    expect((await cache.embed(e, ['a b'])).embedded).toBe(0);
    expect((await cache.embed(e, ['c d'])).embedded).toBe(1);
    expect(cache.size).toBe(2);
  });
  it('keeps each text with its own vector across concurrent batches', async () => {
    const texts = Array.from({ length: 230 }, (_, i) => `step ${'abcdefghij'[i % 10]} ${'klmnopqrst'[Math.floor(i / 10) % 10]} ${'uvwxyz'[Math.floor(i / 100)]}`);
    const cache = new EmbeddingCache();
    const { vectors, embedded } = await cache.embed(localEmbedder(), texts);
    expect(embedded).toBe(new Set(texts).size);
    const direct = await localEmbedder().embed(texts);
    vectors.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(Float32Array.from(direct[i]))));
  });
  it('keys by model: another model\'s vectors are never reused', async () => {
    const cache = new EmbeddingCache();
    await cache.embed(localEmbedder(), ['a b']);
    const other: Embedder = { model: 'other', embed: async (t) => localEmbedder().embed(t) };
    expect((await cache.embed(other, ['a b'])).embedded).toBe(1);
  });
});

describe('candidates and query', () => {
  it('shares the cap between kinds, giving a short list\'s unused share to the others', () => {
    expect(allot([1000, 1000, 1000], 600)).toEqual([200, 200, 200]);
    expect(allot([50, 1000, 10], 600)).toEqual([50, 540, 10]);
    expect(allot([3, 4], 600)).toEqual([3, 4]);
  });
  it('renders steps as a person would write them', () => {
    expect(describeStep({ type: 'fill', selector: '#email', value: 'ada@example.com' })).toBe('fill #email value ada@example.com');
    expect(describeStep({ type: 'click', selector: { role: 'button', name: 'Sign in' } })).toBe('click role button name "Sign in"');
    expect(describeStep({ type: 'url', contains: '/account', timeout_ms: 500 })).toBe('url contains /account');
  });
  it('leaves credentials out of the text (it may go to a remote embedder)', () => {
    expect(describeStep({ type: 'fill', selector: '#password', value: 'hunter2' })).toBe('fill #password value …');
    const request = describeStep({ type: 'request', method: 'POST', url: '/api/items', headers: { Authorization: 'Bearer abc123', 'Content-Type': 'application/json' }, auth: { type: 'bearer', token: 'xyz' }, json: { name: 'Widget', api_key: 'k-1' } });
    expect(request).toBe('request POST /api/items auth … headers Authorization … Content-Type application/json json name Widget api_key …');
    expect(request).not.toMatch(/abc123|xyz|k-1/);
  });
  it('names the field of bad input', () => {
    const issues = (input: Record<string, string>) => SemanticSearchQuery.safeParse(input).error?.issues.map((i) => i.path.join('.'));
    expect(issues({ q: '   ' })).toEqual(['q']);
    expect(issues({ q: 'x'.repeat(501) })).toEqual(['q']);
    expect(issues({ q: 'x', kinds: 'tests,bugs' })).toEqual(['kinds']);
    expect(issues({ q: 'x', limit: '51' })).toEqual(['limit']);
    expect(providerOf('bedrock:amazon.titan-embed-text-v1')).toBe('bedrock');
  });
});
