import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CENSOR, censorSecrets } from './log-redaction';
import { createLogger } from './logger';

describe('censorSecrets', () => {
  it('censors secrets at the top, one level down, and in the request headers', () => {
    const object = {
      authorization: 'Bearer sk_live_x',
      key: 'sk_live_y',
      secret: 'whsec_z',
      operatorToken: 'op_1',
      apiKey: { id: 'key_1', key: 'sk_live_w' },
      webhook: { id: 'wh_1', secret: 'whsec_v' },
      req: { method: 'GET', headers: { authorization: 'Bearer sk_live_u', accept: 'application/json' } },
      requestId: 'req_1',
    };
    expect(censorSecrets(object)).toEqual({
      authorization: CENSOR,
      key: CENSOR,
      secret: CENSOR,
      operatorToken: CENSOR,
      apiKey: { id: 'key_1', key: CENSOR },
      webhook: { id: 'wh_1', secret: CENSOR },
      req: { method: 'GET', headers: { authorization: CENSOR, accept: 'application/json' } },
      requestId: 'req_1',
    });
  });

  it('returns an object without secrets as it is, and never changes the caller’s object', () => {
    const plain = { requestId: 'req_1', route: '/v1/debtors', status: 200, caller: { apiKeyId: 'key_1' }, tags: ['a'], missing: undefined };
    expect(censorSecrets(plain)).toBe(plain);
    const inner = { id: 'key_1', key: 'sk_live_y' };
    const holding = { apiKey: inner, secret: 's' };
    const censored = censorSecrets(holding);
    expect(censored).not.toBe(holding);
    expect(holding).toEqual({ apiKey: { id: 'key_1', key: 'sk_live_y' }, secret: 's' });
    expect(censored.apiKey).not.toBe(inner);
  });

  it('leaves undefined secrets, deeper levels and arrays alone (as pino’s redact paths did)', () => {
    const object = { key: undefined, a: { b: { key: 'deep' } }, list: [{ key: 'in an array' }] };
    expect(censorSecrets(object)).toBe(object);
  });

  it('keeps an Error’s message and stack when it censors one of its fields, and copes with frozen objects', () => {
    const err = Object.assign(new Error('refused'), { key: 'sk_live_y' });
    const censored = censorSecrets({ err }).err as Error & { key: string };
    expect(censored).toBeInstanceOf(Error);
    expect([censored.message, censored.stack, censored.key]).toEqual(['refused', err.stack, CENSOR]);
    expect(err.key).toBe('sk_live_y');
    expect(censorSecrets({ frozen: Object.freeze({ secret: 's', id: 1 }) })).toEqual({ frozen: { secret: CENSOR, id: 1 } });
  });

  it('is what the services’ logger writes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dc-redaction-'));
    try {
      const file = path.join(dir, 'out.log');
      const logger = createLogger('svc', 'info', { destination: file });
      logger.info({ authorization: 'Bearer sk_live_x', apiKey: { id: 'key_1', key: 'sk_live_y' } }, 'created');
      // The stream opens the file and writes asynchronously.
      let line = '';
      for (let waited = 0; !line.endsWith('\n') && waited < 2000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        line = existsSync(file) ? readFileSync(file, 'utf8') : '';
      }
      expect(line).not.toMatch(/sk_live/);
      expect(JSON.parse(line)).toMatchObject({ msg: 'created', authorization: CENSOR, apiKey: { id: 'key_1', key: CENSOR } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
