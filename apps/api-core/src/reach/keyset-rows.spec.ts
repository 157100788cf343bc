import { keysetRows } from './reach.repository';

/** How a capped page's rows become the page (docs/adr/0042); the SQL is pinned by the e2e tests. */
describe('keysetRows', () => {
  const row = (id: string, scanHit?: boolean, scanEdge?: boolean) => ({ id, amount: 1, ...(scanHit === undefined ? {} : { scanHit, scanEdge }) });

  it('an uncapped page is its rows', () => {
    const rows = [row('a'), row('b')];
    expect(keysetRows(rows)).toEqual({ rows, resumeAfter: null });
  });

  it('keeps the rows that passed, up to the first scan edge, and resumes after the edge', () => {
    const rows = [row('a', true, false), row('b', false, true), row('c', true, false), row('d', false, true)];
    expect(keysetRows(rows)).toEqual({ rows: [{ id: 'a', amount: 1 }], resumeAfter: 'b' });
  });

  it('an edge that passed is kept; no edge: the scans reached their end', () => {
    expect(keysetRows([row('a', false, false), row('b', true, true)])).toEqual({ rows: [{ id: 'b', amount: 1 }], resumeAfter: 'b' });
    expect(keysetRows([row('a', true, false), row('b', true, false)])).toEqual({ rows: [{ id: 'a', amount: 1 }, { id: 'b', amount: 1 }], resumeAfter: null });
    expect(keysetRows([])).toEqual({ rows: [], resumeAfter: null });
  });
});
