import { isoDates, Stored } from './rows';

interface View {
  id: string;
  amount: number;
  closedAt: string | null;
  createdAt: string;
}

describe('isoDates', () => {
  it('turns the Date fields of a stored row into ISO text, keeping the field order', () => {
    const row: Stored<View, 'closedAt' | 'createdAt'> = { id: 'x', amount: 1.5, closedAt: null, createdAt: new Date('2026-01-02T03:04:05.006Z') };
    const view: View = isoDates(row);
    expect(JSON.stringify(view)).toBe('{"id":"x","amount":1.5,"closedAt":null,"createdAt":"2026-01-02T03:04:05.006Z"}');
  });
});
