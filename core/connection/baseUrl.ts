import { labError } from '../errors/messages';

/** A validated lab address: where the API lives and which origin its token belongs to. */
export interface LabBaseUrl {
  /** `scheme://host[:port]`, the key a token is stored under. */
  readonly origin: string;
  /** The normalised base URL the user gave, without a trailing `/api/v1` or slash. */
  readonly baseUrl: string;
  /** Path of the base URL on that origin, e.g. `` or `/lims`; endpoint templates are appended to it. */
  readonly basePath: string;
  /** Host (with port when not default), for labels such as "Lab Data (lab.example.com)". */
  readonly host: string;
}

const API_SUFFIX = '/api/v1';

/** True for hosts that never leave this machine: 127.0.0.0/8, `localhost`, `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]' || host === '::1') {
    return true;
  }
  return (
    /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host) &&
    host.split('.').every((part) => Number(part) <= 255)
  );
}

/**
 * Parses what a user typed as the lab's address. Accepts it with or without a trailing `/api/v1`
 * and slashes; requires `https:` unless the host is loopback (the local mock lab).
 */
export function parseBaseUrl(input: string): LabBaseUrl {
  const text = input.trim();
  if (text.length === 0) {
    throw labError('invalidInput', 'baseUrlEmpty');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw labError('invalidInput', 'baseUrlNotUrl', { text: text.slice(0, 200) });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw labError('invalidInput', 'baseUrlScheme', { scheme: url.protocol });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw labError('invalidInput', 'baseUrlInsecure');
  }
  if (url.username || url.password) {
    throw labError('invalidInput', 'baseUrlCredentials');
  }
  if (url.search || url.hash) {
    throw labError('invalidInput', 'baseUrlQuery');
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.toLowerCase().endsWith(API_SUFFIX)) {
    path = path.slice(0, -API_SUFFIX.length).replace(/\/+$/, '');
  }
  return {
    origin: url.origin,
    baseUrl: `${url.origin}${path}`,
    basePath: path,
    host: url.host,
  };
}
