import { LabApiError } from './errors';

/** A validated lab address: where the API lives and which origin its token belongs to. */
export interface LabBaseUrl {
  /** `scheme://host[:port]`, the key a token is stored under. */
  readonly origin: string;
  /** The normalised base URL the user gave, without a trailing `/api/v1` or slash. */
  readonly baseUrl: string;
  /** Path prefix of the API on that origin, e.g. `/api/v1` or `/lims/api/v1`. */
  readonly apiPath: string;
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
  return /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host) && host.split('.').every((part) => Number(part) <= 255);
}

/**
 * Parses what a user typed as the lab's address. Accepts it with or without a trailing `/api/v1`
 * and slashes; requires `https:` unless the host is loopback (the local mock lab).
 */
export function parseBaseUrl(input: string): LabBaseUrl {
  const text = input.trim();
  if (text.length === 0) {
    throw new LabApiError('invalidInput', 'Enter the address of your lab, for example https://lab.example.com.');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LabApiError('invalidInput', `"${text.slice(0, 200)}" is not a web address; enter one like https://lab.example.com.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new LabApiError('invalidInput', `The lab address must start with https:// (got ${url.protocol}).`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new LabApiError('invalidInput', 'The lab address must use https:// so the access token is never sent unencrypted (plain http is allowed only for this machine).');
  }
  if (url.username || url.password) {
    throw new LabApiError('invalidInput', 'The lab address must not contain a user name or password; the access token is entered separately.');
  }
  if (url.search || url.hash) {
    throw new LabApiError('invalidInput', 'The lab address must not contain a query (?…) or fragment (#…).');
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.toLowerCase().endsWith(API_SUFFIX)) {
    path = path.slice(0, -API_SUFFIX.length).replace(/\/+$/, '');
  }
  return {
    origin: url.origin,
    baseUrl: `${url.origin}${path}`,
    apiPath: `${path}${API_SUFFIX}`,
    host: url.host,
  };
}
