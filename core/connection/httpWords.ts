import type { LabBaseUrl } from './baseUrl';
import { serverText } from '../errors/serverText';
import type { BodyStall } from './transport';

/** The words of the HTTP client's log lines and of the waits it says: small, and kept apart from its rules. */

/** How a log line names the lab: "Main lab (lab.example.com)", or the host alone when the name is the host. */
export function labLabel(baseUrl: LabBaseUrl, name: string | undefined): string {
  const host = new URL(baseUrl.origin).host;
  const shown = name ? serverText(name, 60) : undefined;
  return shown && shown !== host ? `${shown} (${host})` : host;
}

/** " (request id X)" for a log line, or nothing. */
export function requestIdWords(requestId: string | undefined): string {
  return requestId ? ` (request id ${requestId})` : '';
}

/** Milliseconds as seconds to a tenth, for the log: "30.0 s". */
export function seconds1(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/** A wait in words: "60 s", "20 min", "24 h", "7 days". */
export function durationWords(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 120) {
    return `${seconds} s`;
  }
  if (seconds < 120 * 60) {
    return `${Math.round(seconds / 60)} min`;
  }
  return seconds < 48 * 3600
    ? `${Math.round(seconds / 3600)} h`
    : `${Math.round(seconds / 86400)} days`;
}

/** What a body did before the answer timeout gave it up, for the log line that says so. */
export function bodyStallWords(stall: BodyStall): string {
  return stall.kind === 'tooSlow'
    ? `the body came too slowly (${stall.bytes} bytes in ${seconds1(stall.waitedMs)}) and was given up ${seconds1(stall.afterHeadersMs)} after the headers`
    : `the body stopped ${seconds1(stall.afterHeadersMs - stall.waitedMs)} after the headers${stall.bytes > 0 ? ` (${stall.bytes} bytes)` : ''} and sent nothing for ${seconds1(stall.waitedMs)}`;
}
