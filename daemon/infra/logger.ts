/** Structured logging (pino) with secrets redacted. */
import { pino, type Logger, type DestinationStream } from 'pino';
import { prettyDestination, wantsPretty, type LogFormat } from './log-format.js';

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
  'bot_token',
  '*.bot_token',
  'secret',
  '*.secret',
  'smtp_url',
  '*.smtp_url',
  'kis_app_key',
  '*.kis_app_key',
  'kis_app_secret',
  '*.kis_app_secret',
  'appkey',
  '*.appkey',
  'appsecret',
  '*.appsecret',
  'secretkey',
  '*.secretkey',
  'approval_key',
  '*.approval_key',
  'req.headers.authorization',
  'headers.authorization',
];

/** Create the daemon's logger; `destination` defaults to stdout. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'stockscreend' }, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}

/** The daemon's logger in the configured format: readable coloured lines on a terminal, pino JSON otherwise. */
export function createConfiguredLogger(config: { log_level: string; log_format: LogFormat }, out: NodeJS.WriteStream = process.stdout): Logger {
  if (!wantsPretty(config.log_format, out.isTTY)) return createLogger(config.log_level);
  return createLogger(config.log_level, prettyDestination(out, out.isTTY === true && process.env.NO_COLOR === undefined));
}
