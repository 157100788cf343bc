import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { censorSecrets } from './log-redaction';
import { currentLogFields } from './request-context';

export type { Logger } from 'pino';

/** Buffered lines wait at most this long for the buffer to fill before they are written. */
export const LOG_FLUSH_INTERVAL_MS = 100;

export interface LoggerOptions {
  /** LOG_FORMAT: `json` (production, any collector) or `pretty` (development). */
  format?: 'json' | 'pretty';
  /** LOG_BUFFER_BYTES: lines gather up to this many bytes (or `flushIntervalMs`) before one write; 0 writes each at once. */
  bufferBytes?: number;
  /** How long gathered lines wait at most (LOG_FLUSH_INTERVAL_MS). */
  flushIntervalMs?: number;
  /** Where lines go: stdout (1) unless a test names a file. */
  destination?: number | string;
}

/**
 * JSON logs, one object per line, with the service name and the current request id (the request
 * context's, set by the gateway per HTTP request, by api-core per NATS request and by the workers
 * per job). Secrets never reach a log: authorization headers and key material are censored
 * (censorSecrets).
 * `format: 'pretty'` (LOG_FORMAT, development only: libs/config refuses it in production) prints
 * the same objects through pino-pretty, a development dependency loaded only then.
 *
 * Writes are asynchronous and, with `bufferBytes`, gathered: stdout is usually a pipe (containers),
 * where each write wakes the reader, and one write per request line cost more than the line itself
 * (synchronous: ~14 % of api-core's CPU under load; asynchronous, one write per line: 0.1 ms of
 * api-core's CPU per debtor page, docs/adr/0034). A buffered line reaches stdout within
 * LOG_FLUSH_INTERVAL_MS; at exit (process.exit, a crash) pino writes what is left, so only a
 * SIGKILL or an out-of-memory kill loses the last ~100 ms of lines.
 */
export function createLogger(service: string, level: string, options: LoggerOptions = {}): Logger {
  const destination = options.format === 'pretty' ? prettyStream() : bufferedWrites(options);
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: censorSecrets },
    mixin: currentLogFields,
  }, destination);
}

/** Asynchronous writes to stdout, lines gathered up to `bufferBytes` and flushed every `flushIntervalMs`. */
function bufferedWrites({ bufferBytes = 0, flushIntervalMs = LOG_FLUSH_INTERVAL_MS, destination = 1 }: LoggerOptions): pino.DestinationStream {
  const stream = pino.destination({ dest: destination, sync: false, minLength: bufferBytes });
  if (bufferBytes > 0) {
    const timer = setInterval(() => {
      try {
        stream.flush();
      } catch {
        clearInterval(timer); // closed (pino ends it when the process runs out of work): nothing left to write
      }
    }, flushIntervalMs);
    timer.unref();
  }
  return stream;
}

/** pino-pretty in this process (no worker thread): colours, local times, one line per entry plus its fields. */
function prettyStream(): pino.DestinationStream {
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', messageKey: 'msg' });
}

/** Lets NestJS write its own messages through our logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
