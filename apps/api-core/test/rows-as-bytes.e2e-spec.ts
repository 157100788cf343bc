import { Database, Prisma, readBinaryColumnsAsBytes } from '@dc/database';
import { createTestDatabase } from '@dc/testing';

/**
 * Database.preparedBytes against a real Postgres: columns read in binary format come back as the
 * exact bytes the server sent (binary-columns.ts wraps pg-protocol's parser), while every query
 * without binary columns — `prepared`, Prisma — reads as before on the same connections.
 */
describe('columns read as bytes (Database.preparedBytes)', () => {
  let db: { url: string; drop: () => Promise<void> };
  let database: Database;

  beforeAll(async () => {
    db = await createTestDatabase();
    readBinaryColumnsAsBytes(); // the runtime patch, as api-core installs it at start-up
    database = new Database(db.url, 1);
  });

  afterAll(async () => {
    await database.close();
    await db.drop();
  });

  it('a text column is its UTF-8 bytes; null stays null, the empty string an empty Buffer', async () => {
    const text = 'García Núñez ✓ 😀 "quoted" \\ back\tslash\n';
    const [row] = await database.preparedBytes<{ a: Buffer; b: Buffer | null; c: Buffer }>(
      Prisma.sql`SELECT ${text}::text AS a, NULL::text AS b, ''::text AS c`,
    );
    expect(Buffer.isBuffer(row.a)).toBe(true);
    expect(row.a.equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(row.b).toBeNull();
    expect(row.c.equals(Buffer.alloc(0))).toBe(true);
  });

  it('a non-text column is its binary value as sent, not mangled by a UTF-8 round trip (brianc/node-postgres#3495)', async () => {
    const [row] = await database.preparedBytes<{ n: Buffer }>(Prisma.sql`SELECT ${1000}::int4 AS n`);
    expect([...row.n]).toEqual([0x00, 0x00, 0x03, 0xe8]);
  });

  it('many rows over many socket reads keep their own bytes (each copied out of the parser’s buffer before it reads on)', async () => {
    const rows = await database.preparedBytes<{ id: Buffer; json: Buffer }>(Prisma.sql`
      SELECT lpad(g::text, 6, '0') AS id, '{"n":' || g || ',"name":"' || repeat('é' || g::text, 200) || '"}' AS json
      FROM generate_series(1, ${3000}::int) g ORDER BY g`);
    expect(rows).toHaveLength(3000);
    rows.forEach((row, i) => {
      const n = i + 1;
      expect(row.id.toString()).toBe(String(n).padStart(6, '0'));
      expect(row.json.equals(Buffer.from(JSON.stringify({ n, name: `é${n}`.repeat(200) })))).toBe(true);
    });
  });

  it('queries without binary columns on the same connection read as before: strings, parsed numbers, Prisma', async () => {
    await database.preparedBytes(Prisma.sql`SELECT ${'x'}::text AS a`);
    const [text] = await database.prepared<{ a: string; n: number }>(Prisma.sql`SELECT ${'García'}::text AS a, ${1000}::int4 AS n`);
    expect(text).toEqual({ a: 'García', n: 1000 });
    const viaPrisma = await database.client.$queryRaw<{ a: string; n: number }[]>`SELECT ${'Núñez'}::text AS a, ${1000}::int4 AS n`;
    expect(viaPrisma).toEqual([{ a: 'Núñez', n: 1000 }]);
  });
});
