import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { currentLogFields } from './request-context';

export type { Logger } from 'pino';

/**
 * JSON logs, one object per line, with the service name and the current request id (the request
 * context's, set by the gateway per HTTP request, by api-core per NATS request and by the workers
 * per job). Secrets never reach a log: authorization headers and key material are redacted by path.
 * `format: 'pretty'` (LOG_FORMAT, development only: libs/config refuses it in production) prints
 * the same objects through pino-pretty, a development dependency loaded only then.
 */
export function createLogger(service: string, level: string, format: 'json' | 'pretty' = 'json'): Logger {
  // Asynchronous writes: stdout is usually a pipe (containers), where a synchronous write per line
  // costs the request path a syscall (measured: ~14 % of api-core's CPU under load).
  const destination = format === 'pretty' ? prettyStream() : pino.destination({ dest: 1, sync: false, minLength: 0 });
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: currentLogFields,
    redact: {
      paths: ['authorization', 'req.headers.authorization', '*.key', '*.secret', 'key', 'secret', 'operatorToken'],
      censor: '[redacted]',
    },
  }, destination);
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
