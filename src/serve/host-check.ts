/**
 * The `Host` header check (docs/http-api.md, docs/http-api.md): a page in a
 * browser can point a name it owns at 127.0.0.1 (DNS rebinding) and so
 * reach a loopback serve that needs no token; its requests still carry that
 * name as their Host. Only the names this serve answers to get through.
 */

/** The names every serve answers to, with its own port (or none). */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

interface HostName {
  name: string;
  port?: number;
}

/** `name`, `name:port`, `[v6]`, `[v6]:port`, lower-cased; a bare IPv6 address is bracketed. */
function parseHost(value: string): HostName | undefined {
  const text = value.trim().toLowerCase();
  if (text === '') return undefined;
  const bracketed = /^(\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/.exec(text);
  if (bracketed !== null) return withPort(bracketed[1] as string, bracketed[2]);
  if ((text.match(/:/g)?.length ?? 0) > 1) return { name: `[${text}]` };
  const plain = /^([^:\s/@]+)(?::(\d{1,5}))?$/.exec(text);
  return plain === null ? undefined : withPort(plain[1] as string, plain[2]);
}

const withPort = (name: string, port: string | undefined): HostName =>
  port === undefined ? { name } : { name, port: Number(port) };

/**
 * A check of a request's Host header against the port the server is bound
 * to: undefined when it is answered to, else why not. Loopback names and
 * `ingest.host` need this serve's port (or none); an `allowedHosts` entry
 * without a port matches any port (a proxy's public name), with one only it.
 */
export function createHostCheck(options: {
  host: string;
  allowedHosts: readonly string[];
}): (header: string | undefined, port: number) => string | undefined {
  const own = new Set(LOOPBACK_NAMES);
  const configured = parseHost(options.host);
  if (configured !== undefined) own.add(configured.name);
  const allowed = options.allowedHosts.map(parseHost).filter((h): h is HostName => h !== undefined);
  return (header, port) => {
    const host = header === undefined ? undefined : parseHost(header);
    if (host !== undefined) {
      if (own.has(host.name) && (host.port === undefined || host.port === port)) return undefined;
      if (allowed.some((a) => a.name === host.name && (a.port === undefined || a.port === host.port)))
        return undefined;
    }
    const shown = header === undefined ? 'no Host header' : `Host ${JSON.stringify(header.slice(0, 256))}`;
    return (
      `${shown}: not one this serve answers to (the loopback names with port ${port}, ingest.host, ` +
      'or a name listed in ingest.allowedHosts)'
    );
  };
}
