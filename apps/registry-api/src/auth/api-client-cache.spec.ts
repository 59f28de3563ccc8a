import { ApiClientCache } from './api-client-cache';

const row = (id: string, secretHash = `hash-of-${id}`) => ({ id, secretHash });

describe('ApiClientCache', () => {
  it('answers nothing and keeps nothing until it is trusted', () => {
    const cache = new ApiClientCache();
    cache.remember(row('a'), cache.ticket());
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.trust();
    cache.remember(row('a'), cache.ticket());
    expect(cache.get('a')).toEqual(row('a'));
  });

  it('forgets a client whose change is reported, and only that one', () => {
    const cache = new ApiClientCache();
    cache.trust();
    cache.remember(row('a'), cache.ticket());
    cache.remember(row('b'), cache.ticket());
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual(row('b'));
  });

  it('forgets every client on an empty id (a TRUNCATE)', () => {
    const cache = new ApiClientCache();
    cache.trust();
    cache.remember(row('a'), cache.ticket());
    cache.forget('');
    expect(cache.size).toBe(0);
    expect(cache.isTrusted).toBe(true);
  });

  it('does not store a row read before a change was reported (the read may predate the change)', () => {
    const cache = new ApiClientCache();
    cache.trust();
    const ticket = cache.ticket();
    cache.forget('a');
    cache.remember(row('a'), ticket);
    expect(cache.get('a')).toBeUndefined();
    cache.remember(row('a'), cache.ticket());
    expect(cache.get('a')).toEqual(row('a'));
  });

  it('does not store a row read before the listener came back, nor while it is away', () => {
    const cache = new ApiClientCache();
    cache.trust();
    const beforeDrop = cache.ticket();
    cache.distrust();
    cache.remember(row('a'), beforeDrop);
    cache.remember(row('a'), cache.ticket());
    const whileDown = cache.ticket();
    cache.trust();
    cache.remember(row('a'), whileDown);
    expect(cache.get('a')).toBeUndefined();
  });

  it('starts over empty when the listener drops and when it comes back', () => {
    const cache = new ApiClientCache();
    cache.trust();
    cache.remember(row('a'), cache.ticket());
    cache.distrust();
    expect(cache.isTrusted).toBe(false);
    expect(cache.size).toBe(0);
    cache.trust();
    expect(cache.get('a')).toBeUndefined();
  });

  it('stays within its bound, dropping the oldest entry first', () => {
    const cache = new ApiClientCache(2);
    cache.trust();
    for (const id of ['a', 'b', 'c']) cache.remember(row(id), cache.ticket());
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toEqual(row('c'));
    cache.remember(row('c', 'rotated'), cache.ticket());
    expect(cache.get('b')).toEqual(row('b'));
    expect(cache.get('c')).toEqual(row('c', 'rotated'));
  });
});
