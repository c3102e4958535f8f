import { describe, expect, it } from 'vitest';
import { etagMatches, freshReadCoalescer, strongEtag, versionedBodyCache } from './http-cache.js';

describe('etagMatches', () => {
  const tag = strongEtag('{"a":1}');
  it('compares weakly, as If-None-Match asks', () => {
    expect(etagMatches(tag, tag)).toBe(true);
    expect(etagMatches(`W/${tag}`, tag)).toBe(true);
    expect(etagMatches(`"x", ${tag}`, tag)).toBe(true);
    expect(etagMatches('*', tag)).toBe(true);
    expect(etagMatches('"x"', tag)).toBe(false);
    expect(etagMatches(undefined, tag)).toBe(false);
    expect(etagMatches(tag.slice(1, -1), tag)).toBe(false);
  });
});

describe('versionedBodyCache', () => {
  it('serves an entry only for the version it was built from, and stays bounded', () => {
    const cache = versionedBodyCache({ maxEntries: 2 });
    const e = cache.set('a', 1, { x: 1 });
    expect(cache.get('a', 1)).toBe(e);
    expect(e.body.toString()).toBe('{"x":1}');
    expect(cache.get('a', 2)).toBeUndefined();
    expect(cache.get('a', 1)).toBeUndefined();
    cache.set('a', 1, 1);
    cache.set('b', 1, 2);
    cache.set('c', 1, 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a', 1)).toBeUndefined();
  });
});

describe('freshReadCoalescer', () => {
  it('shares round trips but never hands a caller a read that started before its call', async () => {
    let value = 0;
    let reads = 0;
    const pending: (() => void)[] = [];
    const read = freshReadCoalescer(async () => {
      reads++;
      const seen = value;
      await new Promise<void>((resolve) => pending.push(resolve));
      return seen;
    });
    const a = read('k');
    const b = read('k'); // arrives while the first read is in flight: waits for the next one
    const c = read('k');
    value = 1; // a write commits after the first read took its snapshot
    expect(reads).toBe(1);
    pending.shift()!();
    expect(await a).toBe(0);
    await new Promise((r) => setTimeout(r, 0));
    expect(reads).toBe(2);
    pending.shift()!();
    expect(await b).toBe(1);
    expect(await c).toBe(1);
    // Keys are independent, and errors reach only their callers.
    const failing = freshReadCoalescer(async (key) => {
      if (key === 'bad') throw new Error('boom');
      return key;
    });
    await expect(failing('bad')).rejects.toThrow('boom');
    expect(await failing('good')).toBe('good');
  });
});
