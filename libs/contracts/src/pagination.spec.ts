import { encodeCursor, jsonItemBody, jsonItemBytes, jsonListBody, jsonListBytes, JsonRow, toPage } from './pagination';
import { JsonBytes } from './rpc/json-bytes';

/** Rows as Postgres serialises them, beside the objects toPage would serialise. */
function rows(n: number): { json: JsonRow[]; views: { id: string; name: string }[] } {
  const views = Array.from({ length: n }, (_, i) => ({ id: `dbt_${String(i).padStart(26, '0')}`, name: `Ana "${i}" \u00e9\n` }));
  return { views, json: views.map((v) => ({ id: v.id, json: JSON.stringify(v) })) };
}

describe('JSON bodies from rows Postgres serialised', () => {
  it.each([0, 1, 3, 4, 5])('a list of %i rows (limit 4) is byte for byte what toPage would serialise', (n) => {
    const { json, views } = rows(n);
    expect(jsonListBody(json, 4)).toBe(JSON.stringify(toPage(views, 4, (v) => v)));
  });

  it.each([0, 2, 5])('a capped page of %i rows that stopped after an id (limit 4) is what toPage writes with resumeAfter', (n) => {
    const { json, views } = rows(n);
    const edge = 'evt_01J00000000000000000000000';
    expect(jsonListBody(json, 4, edge)).toBe(JSON.stringify(toPage(views, 4, (v) => v, edge)));
  });

  it.each([0, 1, 3, 4, 5])('from rows read as bytes, a list of %i rows (limit 4) has the same bytes', (n) => {
    const { json } = rows(n);
    const bytes = json.map((r) => ({ id: Buffer.from(r.id), json: Buffer.from(r.json) }));
    expect(jsonListBytes(bytes, 4).equals(Buffer.from(jsonListBody(json, 4)))).toBe(true);
  });

  it('an item from a row read as bytes has the same bytes', () => {
    const [row] = rows(1).json;
    expect(jsonItemBytes({ id: Buffer.from(row.id), json: Buffer.from(row.json) }).toString()).toBe(jsonItemBody(row));
  });

  it('an item is {"data": <row>}', () => {
    const { json, views } = rows(1);
    expect(jsonItemBody(json[0])).toBe(JSON.stringify({ data: views[0] }));
  });

  it('JsonBytes keeps the bytes and parses only on request', () => {
    const bytes = JsonBytes.fromText<{ data: number[] }>('{"data":[1,2]}');
    expect(Buffer.from(bytes.bytes).toString()).toBe('{"data":[1,2]}');
    expect(bytes.parse()).toEqual({ data: [1, 2] });
    expect(Buffer.from(JsonBytes.of({ a: 'é' }).bytes).toString()).toBe('{"a":"é"}');
  });
});

describe('toPage', () => {
  const ids = (...n: number[]) => n.map((i) => ({ id: `pay_${String(i).padStart(26, '0')}` }));
  const after = (i: number) => encodeCursor(`pay_${String(i).padStart(26, '0')}`);

  it('limit + 1 rows: a full page, resumed after its last row', () => {
    expect(toPage(ids(1, 2, 3), 2, (r) => r)).toEqual({ data: ids(1, 2), pagination: { hasMore: true, limit: 2, nextCursor: after(2) } });
    // A capped scan that also filled the page resumes after the page's last row, not where it stopped.
    expect(toPage(ids(1, 2, 3), 2, (r) => r, ids(9)[0].id).pagination.nextCursor).toBe(after(2));
  });

  it('a short page whose scan stopped at the cap: hasMore, resumed after the last row examined (docs/adr/0042)', () => {
    expect(toPage(ids(4), 2, (r) => r, ids(9)[0].id)).toEqual({ data: ids(4), pagination: { hasMore: true, limit: 2, nextCursor: after(9) } });
    expect(toPage([], 2, (r) => r, ids(9)[0].id)).toEqual({ data: [], pagination: { hasMore: true, limit: 2, nextCursor: after(9) } });
  });

  it('otherwise the last page', () => {
    expect(toPage(ids(1, 2), 2, (r) => r)).toEqual({ data: ids(1, 2), pagination: { hasMore: false, limit: 2, nextCursor: null } });
  });
});
