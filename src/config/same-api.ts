// Whether two base URLs reach one API, as far as their spelling tells: the reseller id a ping states names a reseller
// of that API only (two reference servers may each have an `rs_demo`), so keys of one reseller are matched by it only
// at the same API (journal/intent.ts sameReseller).
// It imports nothing: the journal reads it (journal/intent.ts), and config/resolve.ts would bring commander with it.

/**
 * The API a base URL names: its scheme, host, port and path, any name of this machine (`localhost`, `127.0.0.1`,
 * `[::1]`) as one, and the port as the scheme's default where none is given. A host's DNS name and its address are
 * two APIs here: nothing in the spelling tells them one.
 */
export function apiOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  const host = isLoopbackHost(url.hostname) ? 'loopback' : url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.protocol}//${host}:${port}${url.pathname.replace(/\/+$/, '')}`;
}

/** Two base URLs of one API (apiOf). */
export function sameApi(a: string, b: string): boolean {
  return a === b || apiOf(a) === apiOf(b);
}

/** A name of this machine: `localhost` (and `*.localhost`), `::1`, any 127.x.y.z. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
