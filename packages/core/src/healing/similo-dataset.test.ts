import { describe, it, expect } from 'vitest';
import { Fingerprint } from '../contracts/fingerprint.ts';
import { convertSimiloDataset, normaliseIdXpath, similoToFingerprint } from './similo-dataset.ts';

const record = {
  tag: 'A', id: 'nav-logo', class: 'nav-a  logo', href: '/home', text: 'Home', visible_text: 'Home', name: 'n', type: 't', value: 'v', title: 'T', placeholder: 'p',
  xpath: '/html[1]/body[1]/a[1]', idxpath: "//*[@id='nav']/a[1]", x: '10', y: '20', width: '30', height: '40', area: '1200', shape: '75',
  is_button: 'yes', neighbor_text_left: 'Left', neighbor_text_right: 'Right', neighbor_text_above: 'Up', neighbor_text_below: 'Down', neighbor_text: 'left right',
};

describe('Similo converter', () => {
  it('maps every field', () => {
    expect(similoToFingerprint(record)).toEqual({
      tag: 'a', id: 'nav-logo', name: 'n', type: 't', value: 'v', href: '/home', title: 'T', placeholder: 'p', xpath: '/html[1]/body[1]/a[1]',
      text: 'Home', classes: ['nav-a', 'logo'], idXpath: '//*[@id="nav"]/a[1]', box: { x: 10, y: 20, width: 30, height: 40 }, isButton: true,
      neighborText: ['Left', 'Right', 'Up', 'Down', 'left right'],
    });
    expect(Fingerprint.safeParse(similoToFingerprint(record)).success).toBe(true);
  });
  it('uses visible_text when text is absent, and skips unparseable numbers', () => {
    const fp = similoToFingerprint({ tag: 'INPUT', visible_text: 'Search…', x: '1', y: 'n/a', width: '3', height: '4' });
    expect(fp).toEqual({ tag: 'input', text: 'Search…' });
  });
  it('normalises both idxpath forms', () => {
    expect(normaliseIdXpath('id("logo")/a[1]')).toBe('//*[@id="logo"]/a[1]');
    expect(normaliseIdXpath('/html[1]/body[1]')).toBe('/html[1]/body[1]');
  });
  it('converts a dataset to the rank contract without carrying answers', () => {
    const ds = convertSimiloDataset({ apps: [{ name: 'Site', candidates: [record, { tag: 'DIV' }], cases: [{ target: { ...record, answer: 1 }, answer: 1 }] }] });
    expect(ds.input.pages).toHaveLength(1);
    expect(ds.input.cases[0]).toMatchObject({ id: 'Site#0', page: 'Site' });
    expect(ds.answers.get('Site#0')).toBe(1);
    expect(JSON.stringify(ds.input)).not.toContain('answer');
    expect(() => convertSimiloDataset({})).toThrow(/apps/);
  });
});
