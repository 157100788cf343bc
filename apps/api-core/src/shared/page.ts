import { ListBody, toPage } from '@dc/contracts';

/**
 * A list body from `limit + 1` rows already in the view's shape (repositories return views): the
 * extra row only tells that there is a next page. `resumeAfter`: the last id a capped scan examined
 * when it stopped the page short (docs/adr/0042).
 */
export function pageOf<V extends { id: string }>(rows: V[], limit: number, resumeAfter: string | null = null): ListBody<V> {
  return toPage(rows, limit, (row) => row, resumeAfter);
}
