/** Structured logging (pino) with secrets redacted. */
import { pino, type Logger, type DestinationStream } from 'pino';

const REDACT = [
  'password',
  '*.password',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'jwt_secret',
  '*.jwt_secret',
  'admin_password',
  '*.admin_password',
  'metrics_token',
  '*.metrics_token',
  'req.headers.authorization',
  'headers.authorization',
];

/** Create the daemon's logger; `destination` defaults to stdout. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'stockscreend' }, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}
