import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '@svc/core/ports/logger';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

/** Structured JSON logs (Powertools) behind the core Logger port. */
export function createLogger(level: LogLevel, serviceName = 'svc'): Logger {
  const logger = new PowertoolsLogger({ serviceName, logLevel: level });
  return {
    debug: (message, fields) => logger.debug(message, fields ?? {}),
    info: (message, fields) => logger.info(message, fields ?? {}),
    warn: (message, fields) => logger.warn(message, fields ?? {}),
    error: (message, fields) => logger.error(message, fields ?? {}),
  };
}
