import { DeadlinePassedError, DeadlinePool } from './deadline-pool';

// Port 1 is never Postgres: a test that reached the network would fail with ECONNREFUSED instead.
const config = { connectionString: 'postgresql://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 200 };

describe('DeadlinePool', () => {
  it('refuses a connection once the deadline has passed, in both connect styles and through query()', async () => {
    const pool = new DeadlinePool(config, () => Date.now() - 1);
    await expect(pool.connect()).rejects.toBeInstanceOf(DeadlinePassedError);
    await expect(pool.query('SELECT 1')).rejects.toBeInstanceOf(DeadlinePassedError);
    const viaCallback = await new Promise<Error | undefined>((resolve) => pool.connect((err) => resolve(err)));
    expect(viaCallback).toBeInstanceOf(DeadlinePassedError);
    expect(viaCallback?.message).toBe('The caller stopped waiting for this request before its database work could start.');
    await pool.end();
  });

  it('connects as usual before the deadline or without one', async () => {
    for (const deadline of [() => Date.now() + 60_000, () => undefined]) {
      const pool = new DeadlinePool(config, deadline);
      await expect(pool.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await pool.end();
    }
  });
});
