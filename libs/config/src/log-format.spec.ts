import { loadConfig, MAX_LOG_BUFFER_BYTES } from './config';

/** LOG_FORMAT (docs/adr/0032) — pretty for a developer's terminal, JSON everywhere else, never pretty in production. */
describe('LOG_FORMAT', () => {
  const TTY = true;
  const PIPE = false;

  it('defaults to pretty only in development with stdout on a terminal', () => {
    expect(loadConfig('api-core', {}, TTY).logFormat).toBe('pretty');
    expect(loadConfig('api-core', {}, PIPE).logFormat).toBe('json');
    expect(loadConfig('api-core', { NODE_ENV: 'test' }, TTY).logFormat).toBe('json');
  });

  it('is what LOG_FORMAT says outside production', () => {
    expect(loadConfig('api-core', { LOG_FORMAT: 'json' }, TTY).logFormat).toBe('json');
    expect(loadConfig('api-core', { LOG_FORMAT: 'pretty' }, PIPE).logFormat).toBe('pretty');
    expect(loadConfig('api-core', { NODE_ENV: 'test', LOG_FORMAT: 'pretty' }, PIPE).logFormat).toBe('pretty');
    expect(() => loadConfig('api-core', { LOG_FORMAT: 'text' }, TTY)).toThrow('LOG_FORMAT must be one of json, pretty (got "text")');
  });

  it('production logs JSON, even on a terminal, and refuses pretty at start-up with the reason', () => {
    const refusal = 'LOG_FORMAT=pretty is for development only: production logs are JSON (pino-pretty is not installed in the images); unset LOG_FORMAT or set it to json';
    let problems: string[] = [];
    try {
      loadConfig('api-core', { NODE_ENV: 'production', LOG_FORMAT: 'pretty' }, TTY);
    } catch (err) {
      problems = (err as { problems: string[] }).problems;
    }
    expect(problems).toContain(refusal);
    // Whatever else production lacks here, the default format is never the refusal's cause.
    for (const env of [{ NODE_ENV: 'production' }, { NODE_ENV: 'production', LOG_FORMAT: 'json' }]) {
      try {
        loadConfig('api-core', env, TTY);
      } catch (err) {
        expect((err as { problems: string[] }).problems.join('\n')).not.toContain('LOG_FORMAT');
      }
    }
  });
});

describe('LOG_BUFFER_BYTES', () => {
  it('takes up to MAX_LOG_BUFFER_BYTES and refuses more at start-up (the log stream refuses a buffer of its write size)', () => {
    expect(loadConfig('api-core', { LOG_BUFFER_BYTES: String(MAX_LOG_BUFFER_BYTES) }).logBufferBytes).toBe(16_383);
    expect(() => loadConfig('api-core', { LOG_BUFFER_BYTES: '16384' })).toThrow('LOG_BUFFER_BYTES must be an integer from 0 to 16383 (got "16384")');
  });
});
