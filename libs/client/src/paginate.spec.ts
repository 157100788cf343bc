import { Paginator } from './paginate';
import type { Page } from './types';

describe('Paginator', () => {
  it('follows nextCursor while hasMore, through short and empty pages (a capped scan, docs/adr/0042)', async () => {
    const pages: Record<string, Page<number>> = {
      first: { data: [], pagination: { hasMore: true, limit: 50, nextCursor: 'c1' } },
      c1: { data: [1], pagination: { hasMore: true, limit: 50, nextCursor: 'c2' } },
      c2: { data: [], pagination: { hasMore: true, limit: 50, nextCursor: 'c3' } },
      c3: { data: [2, 3], pagination: { hasMore: false, limit: 50, nextCursor: null } },
    };
    const asked: (string | undefined)[] = [];
    const paginator = new Paginator<number>(async (cursor) => {
      asked.push(cursor);
      return pages[cursor ?? 'first'];
    });
    expect(await paginator.toArray()).toEqual([1, 2, 3]);
    expect(asked).toEqual([undefined, 'c1', 'c2', 'c3']);
  });
});
