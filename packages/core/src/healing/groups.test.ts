import { describe, expect, it } from 'vitest';
import { linkGroups } from './groups.ts';
import { prepare } from './prepare.ts';

const ids = (xs: { id: string }[] | undefined) => (xs ?? []).map((x) => x.id).sort();

describe('linkGroups (visual groups)', () => {
  it('links a wrapper with the single node inside it, not a container with its children', () => {
    const page = [
      { id: 'label', tag: 'label', xpath: '/html[1]/body[1]/form[1]/label[1]' },
      { id: 'span', tag: 'span', xpath: '/html[1]/body[1]/form[1]/label[1]/span[1]' },
      { id: 'ul', tag: 'ul', xpath: '/html[1]/body[1]/ul[1]' },
      { id: 'li1', tag: 'li', xpath: '/html[1]/body[1]/ul[1]/li[1]' },
      { id: 'li2', tag: 'li', xpath: '/html[1]/body[1]/ul[1]/li[2]' },
    ].map(prepare);
    linkGroups(page);
    expect(ids(page[0].group)).toEqual(['span']);
    expect(ids(page[1].group)).toEqual(['label']);
    expect(page[0].groupId).toBe(page[1].groupId);
    for (const p of page.slice(2)) expect(p.group).toEqual([]);
    expect(page[0].groupTokens?.has('span')).toBe(true);
  });

  it('links nodes whose boxes nearly coincide, whatever their paths', () => {
    const page = [
      { id: 'a', tag: 'a', xpath: '/html[1]/body[1]/div[1]/a[1]', box: { x: 10, y: 10, width: 100, height: 30 } },
      { id: 'svg', tag: 'svg', xpath: '/html[1]/body[1]/div[2]/svg[1]', box: { x: 12, y: 11, width: 96, height: 28 } },
      { id: 'far', tag: 'a', xpath: '/html[1]/body[1]/div[3]/a[1]', box: { x: 300, y: 10, width: 100, height: 30 } },
    ].map(prepare);
    linkGroups(page);
    expect(ids(page[0].group)).toEqual(['svg']);
    expect(page[2].group).toEqual([]);
  });
});
