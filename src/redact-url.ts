/**
 * URLs as they may be shown or logged: a user name and password written into a URL
 * (`https://user:pass@host/`) never appear. The one helper for every place that prints a configured URL
 * (start-up log, `order-desk doctor`); `redactUrlsIn` also cleans free text such as an error message.
 */

const REDACTED = "***";

/**
 * `https://user:pass@host/path` → `https://***@host/path`, the rest as written; a URL without credentials is
 * returned as given.
 */
export function redactUrl(url: string | URL): string {
  const text = String(url);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return redactUrlsIn(text);
  }
  if (parsed.username === "" && parsed.password === "") return text;
  // The user info ends at the authority's last "@"; the authority ends at the first of / ? # \ after "//".
  const start = text.indexOf("//") + 2;
  const ends = ["/", "?", "#", "\\"].map((c) => text.indexOf(c, start)).filter((i) => i >= 0);
  const end = Math.min(text.length, ...ends);
  const at = text.lastIndexOf("@", end - 1);
  if (start >= 2 && at >= start) return `${text.slice(0, start)}${REDACTED}${text.slice(at)}`;
  return `${parsed.protocol}//${REDACTED}@${parsed.host}${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/**
 * The user info of every `scheme://user:pass@` in `text` replaced. Linear: the user info is a run of characters
 * that cannot be `/`, `@` or whitespace, matched only right after `://`.
 */
const CREDENTIALS = /(\b[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/@?#]{1,2048}@/gi;

export function redactUrlsIn(text: string): string {
  return text.replace(CREDENTIALS, `$1${REDACTED}@`);
}
