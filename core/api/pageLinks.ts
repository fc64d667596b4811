import type { LabBaseUrl } from '../connection/baseUrl';

/** A next-page link as a list page gives it: a link, "no next page" (`null`), or nothing said. */
export type NextLink = string | null | undefined;

/**
 * The `rel="next"` target of an RFC 8288 `Link` header, `null` when the header is there without
 * one (the last page), undefined without a header.
 */
export function nextFromLinkHeader(header: string | string[] | undefined): NextLink {
  const text = Array.isArray(header) ? header.join(', ') : header;
  if (text === undefined || text.trim() === '') {
    return undefined;
  }
  for (const match of text.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '');
    if (rel && (rel[1] ?? rel[2] ?? '').toLowerCase().split(/\s+/).includes('next')) {
      return match[1]!.trim();
    }
  }
  return null;
}

function isDefaultPort(url: URL): boolean {
  return url.port === '';
}

/**
 * The next page to ask for, from the body's link (`next`, `links.next`, `_links.next.href`) or the
 * `Link` header, resolved against the page it came with. Only a link on the lab's own origin is
 * followed (the same host under the other scheme counts, as servers behind a TLS proxy often write
 * `http://` links; the request still goes to the lab's origin). The result is the path and query
 * to ask for, `null` for "no next page", undefined when the server gave no links; `foreign` tells
 * that a link was ignored because it points elsewhere.
 */
export function nextPageLink(
  bodyNext: NextLink,
  linkHeader: string | string[] | undefined,
  lab: LabBaseUrl,
  from: URL,
): { readonly link: NextLink; readonly foreign: boolean } {
  const raw = bodyNext !== undefined ? bodyNext : nextFromLinkHeader(linkHeader);
  if (raw === undefined || raw === null) {
    return { link: raw, foreign: false };
  }
  let url: URL;
  try {
    url = new URL(raw, from);
  } catch {
    return { link: undefined, foreign: true };
  }
  const labOrigin = new URL(lab.origin);
  const sameOrigin = url.origin === labOrigin.origin;
  const sameHostOtherScheme =
    url.hostname === labOrigin.hostname &&
    isDefaultPort(url) &&
    isDefaultPort(labOrigin) &&
    ['http:', 'https:'].includes(url.protocol);
  if (!sameOrigin && !sameHostOtherScheme) {
    return { link: undefined, foreign: true };
  }
  return { link: `${url.pathname}${url.search}`, foreign: false };
}
