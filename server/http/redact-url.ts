/**
 * URLs as they may be logged: the value of any query parameter that can carry a secret (the connect
 * widget's `/link?token=…`, for instance) is replaced, so a token never reaches a log line.
 */
const SECRET_PARAMS = /([?&](?:token|link_token|linkToken|public_token|publicToken|access_token|accessToken|secret|password)=)[^&#]*/gi;

export function redactUrl(url: string | undefined): string | undefined {
  return url === undefined ? url : url.replace(SECRET_PARAMS, '$1[redacted]');
}
