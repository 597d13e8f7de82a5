import { BlockList, isIP } from 'node:net';
import { DisallowedHost, ImproperlyConfigured } from './exceptions.js';

// Django's host syntax check: a name or a bracketed IPv6 literal, optional port.
const HOST_RE = /^([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(:[0-9]+)?$/;

/** Splits `host[:port]` into lower-cased domain and port; invalid syntax gives `['', '']`. */
export function splitDomainPort(host: string): [string, string] {
  const lower = host.toLowerCase();
  if (!HOST_RE.test(lower)) return ['', ''];
  if (lower.endsWith(']')) return [lower, ''];
  const colon = lower.lastIndexOf(':');
  const domain = colon === -1 ? lower : lower.slice(0, colon);
  const port = colon === -1 ? '' : lower.slice(colon + 1);
  return [domain.endsWith('.') ? domain.slice(0, -1) : domain, port];
}

/**
 * Validates Host headers against ALLOWED_HOSTS with Django's rules: `*`
 * matches anything, `.example.com` matches the domain and its subdomains,
 * anything else must match exactly. Results are memoised (bounded).
 */
export class HostValidator {
  private readonly patterns: string[];
  private readonly cache = new Map<string, boolean>();

  constructor(allowed: readonly string[]) {
    this.patterns = allowed.map((p) => p.toLowerCase());
  }

  isAllowed(domain: string): boolean {
    const hit = this.cache.get(domain);
    if (hit !== undefined) return hit;
    const ok = domain !== '' && this.patterns.some((p) => matchesPattern(domain, p));
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(domain, ok);
    return ok;
  }

  /** Hosts (as sent, port included) already found allowed: most requests name one of a few. */
  private readonly allowedHosts = new Set<string>();

  /** Returns the host when allowed; throws `DisallowedHost` (400) otherwise. */
  check(host: string): string {
    if (this.allowedHosts.has(host)) return host;
    const [domain] = splitDomainPort(host);
    if (!this.isAllowed(domain)) {
      // Django's wording (its DEBUG message), with over-long hosts cut short.
      const cut = (s: string) => (s.length > 100 ? `${s.slice(0, 100)}…` : s);
      const hint = domain
        ? ` You may need to add '${cut(domain)}' to ALLOWED_HOSTS.`
        : ' The domain name provided is not valid according to RFC 1034/1035.';
      throw new DisallowedHost(`Invalid HTTP_HOST header: '${cut(host)}'.${hint}`);
    }
    if (this.allowedHosts.size >= 1000) this.allowedHosts.clear();
    this.allowedHosts.add(host);
    return host;
  }
}

function matchesPattern(domain: string, pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('.')) return domain === pattern.slice(1) || domain.endsWith(pattern);
  return domain === pattern;
}

/**
 * The one place that decides whether a peer is a trusted proxy
 * (TRUSTED_PROXIES: addresses and CIDRs, IPv4 or IPv6).
 */
export class ProxyTrust {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(entries: readonly string[], setting = 'TRUSTED_PROXIES') {
    this.empty = entries.length === 0;
    for (const entry of entries) {
      const [addr, bits] = String(entry).split('/');
      const family = isIP(addr ?? '');
      if (!addr || family === 0) throw new ImproperlyConfigured(`${setting}: "${entry}" is not an address or CIDR.`);
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.list.addAddress(addr, type);
      else {
        const prefix = Number(bits);
        if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
          throw new ImproperlyConfigured(`${setting}: "${entry}" has a bad prefix length.`);
        }
        this.list.addSubnet(addr, prefix, type);
      }
    }
  }

  isTrusted(address: string | undefined): boolean {
    if (this.empty || !address) return false;
    const mapped = address.startsWith('::ffff:') ? address.slice(7) : address;
    const family = isIP(mapped);
    if (family === 0) return false;
    return this.list.check(mapped, family === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * The client address: the socket peer, or — when the peer is trusted — the
   * right-most X-Forwarded-For entry that is not itself a trusted proxy.
   */
  clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined): string {
    const socket = peer ?? '';
    if (!this.isTrusted(socket) || forwardedFor === undefined) return socket;
    const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = chain[i]!;
      if (isIP(hop) === 0) return socket;
      if (!this.isTrusted(hop)) return hop;
    }
    return chain[0] ?? socket;
  }
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The request's socket, whose `remoteAddress` names the peer. */
type Peer = { readonly remoteAddress?: string | undefined };

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Which forwarded headers count, Django's way: `X-Forwarded-Host` only with
 * USE_X_FORWARDED_HOST, the scheme header only with SECURE_PROXY_SSL_HEADER;
 * both off by default. When TRUSTED_PROXIES lists the proxies, only their
 * requests are believed (Django believes every peer; so does Trestle when
 * none is listed).
 */
export class ForwardedHeaders {
  private readonly host: boolean;
  /** The scheme header's name, lower-cased (`HTTP_X_FORWARDED_PROTO` → `x-forwarded-proto`), and its secure value. */
  private readonly ssl: readonly [string, string] | null;

  constructor(
    settings: { readonly USE_X_FORWARDED_HOST: boolean; readonly SECURE_PROXY_SSL_HEADER: readonly [string, string] | null },
    private readonly proxies: ProxyTrust,
  ) {
    this.host = settings.USE_X_FORWARDED_HOST;
    const ssl = settings.SECURE_PROXY_SSL_HEADER;
    this.ssl = ssl === null ? null : [headerName(ssl[0]), ssl[1]];
  }

  /** Whether the peer's forwarded headers count; its address is read only when proxies are listed. */
  private believed(socket: Peer | undefined): boolean {
    return this.proxies.empty || this.proxies.isTrusted(socket?.remoteAddress);
  }

  /** The forwarded host, when it counts for this request (the whole header value, as Django). */
  forwardedHost(headers: Headers, socket: Peer | undefined): string | undefined {
    if (!this.host) return undefined;
    const value = first(headers['x-forwarded-host']);
    return value !== undefined && this.believed(socket) ? value : undefined;
  }

  /** `https`/`http` from the scheme header when it counts, else `undefined` (the socket decides). */
  forwardedScheme(headers: Headers, socket: Peer | undefined): 'http' | 'https' | undefined {
    if (this.ssl === null) return undefined;
    const value = first(headers[this.ssl[0]]);
    if (value === undefined || !this.believed(socket)) return undefined;
    return value.split(',')[0]!.trim() === this.ssl[1] ? 'https' : 'http';
  }
}

/** `HTTP_X_FORWARDED_PROTO` (Django's META name) or `X-Forwarded-Proto` → `x-forwarded-proto`. */
function headerName(name: string): string {
  return (/^HTTP_/.test(name) ? name.slice(5).replace(/_/g, '-') : name).toLowerCase();
}
