import { jsonItemBody, jsonListBody, JsonRow, toPage } from './pagination';
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
