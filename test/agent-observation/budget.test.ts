import { chooseText, type WorkLine, type WorkSection } from '../../server/agent/observation/budget';

/** Which text an observation keeps when it must cut, and how it says what it cut (no browser needed). */
const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

describe('chooseText', () => {
  const sections = new Map<string, WorkSection>([
    ['/1', { role: 'article', name: 'Story', tag: 'article', id: 1, idx: 0 }],
    ['/2', { role: 'region', name: 'Stops', tag: 'div', id: 2, idx: 7 }],
    ['1/1', { role: 'document', name: 'Card', tag: 'body', id: 1, idx: 0, frame: [1] }],
  ]);

  it('keeps headings, text next to controls and on-screen text first, and notes the rest per section', () => {
    const lines: WorkLine[] = [
      { k: 't', s: 'Title', h: 1, c: '/1' },
      { k: 't', s: words(60, 'onscreen'), v: 1, c: '/1' },
      { k: 't', s: words(80, 'below'), c: '/1' },
      { k: 't', s: words(80, 'further'), c: '/1' },
      { k: 't', s: 'Price: $99', c: '/1' },
      { k: 'e', i: 1 },
      { k: 't', s: words(50, 'stop'), c: '/2' },
      { k: 't', s: '', n: 900, c: '1/1' },
    ];
    const out = chooseText(lines, sections, 900, 20);
    expect(out.cut).toBe(true);
    const texts = out.lines.map((l) =>
      l.k === 't' ? l.s.slice(0, 12) : l.k === 'cut' ? `cut ${l.chars} ${l.where ?? ''} ${l.i ?? ''}` : l.k,
    );
    expect(texts[0]).toBe('Title');
    expect(texts[1]).toBe('onscreen0 on');
    // The first paragraph that did not fit is cut short, the note follows what was kept of it.
    expect(texts[2]).toBe('below0 below');
    expect(texts[3]).toMatch(/^cut \d+ article 'Story' 20$/);
    expect(texts.slice(4)).toEqual(['Price: $99', 'e', expect.stringMatching(/^cut \d+ region 'Stops' 7$/), "cut 900 document 'Card' 21"]);
    // Sections without an index of their own get one, in their frame; the scrollable box keeps its own.
    expect(out.sections).toEqual([
      { index: 20, role: 'article', name: 'Story', tag: 'article', scope: null, states: {}, section: 1 },
      { index: 21, role: 'document', name: 'Card', tag: 'body', scope: null, states: {}, section: 1, frame: [1] },
    ]);
    const kept = out.lines.reduce((n, l) => n + (l.k === 't' ? l.s.length : 0), 0);
    expect(kept).toBeLessThanOrEqual(900);
  });

  it('keeps everything that fits, and notes text outside any section as page text', () => {
    const all: WorkLine[] = [
      { k: 't', s: 'Short' },
      { k: 'e', i: 1 },
    ];
    expect(chooseText(all, sections, 100, 2)).toEqual({ lines: all, sections: [], cut: false });
    const long: WorkLine[] = [
      { k: 't', s: 'Intro', v: 1 },
      { k: 't', s: words(100, 'x') },
    ];
    const out = chooseText(long, sections, 50, 2);
    expect(out.lines).toEqual([
      { k: 't', s: 'Intro' },
      { k: 'cut', chars: long[1]!.k === 't' ? long[1]!.s.length : 0 },
    ]);
  });
});
