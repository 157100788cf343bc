import type { Page } from './types';

/** Fetches one page given the cursor to send (undefined for the first page). */
export type PageFetcher<P extends Page<unknown>> = (cursor: string | undefined) => Promise<P>;

/**
 * Every page of a list, following `pagination.nextCursor` until `hasMore` is false (spec:
 * Pagination), never judging by a page's size: a page whose filters are not in the list's order
 * may hold fewer than `limit` items, even none, and still have more (docs/adr/0042). Iterate it for
 * the items (`for await (const debtor of ...)`), or `.pages()` for the pages themselves. Nothing is
 * fetched until iteration starts; each iteration starts over.
 */
export class Paginator<Item, P extends Page<Item> = Page<Item>> implements AsyncIterable<Item> {
  constructor(private readonly fetchPage: PageFetcher<P>, private readonly firstCursor?: string) {}

  async *pages(): AsyncGenerator<P, void, undefined> {
    let cursor = this.firstCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      const next = page.pagination.nextCursor;
      if (!page.pagination.hasMore || !next) return;
      cursor = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item in an array (mind the size of what you list). */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
