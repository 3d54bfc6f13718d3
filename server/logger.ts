import pino, { type DestinationStream, type Logger } from 'pino';

/** One logger; secrets are redacted by path so a careless log line cannot print them. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: {
      paths: [
        'req.headers["x-client-secret"]',
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.accessToken',
        '*.access_token',
        '*.publicToken',
        '*.linkToken',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
