import { serverText } from '../errors/serverText';

/** What an error body says, made safe to show: the server's reason and its request id. */
export interface ErrorBody {
  readonly reason?: string;
  readonly requestId?: string;
}

const MAX_REASON = 300;
const MAX_REQUEST_ID = 120;
const MESSAGE_KEYS = [
  'message',
  'detail',
  'error_description',
  'title',
  'error',
  'msg',
  'reason',
  'description',
];
const REQUEST_ID_KEYS = [
  'request_id',
  'requestId',
  'correlation_id',
  'correlationId',
  'trace_id',
  'traceId',
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first message-like string in a value: a string, a list of them, or an object's message field. */
function messageIn(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    return value.trim() || undefined;
  }
  if (depth > 3) {
    return undefined;
  }
  if (Array.isArray(value)) {
    const messages = value
      .map((item) => messageIn(item, depth + 1))
      .filter((item): item is string => item !== undefined);
    return messages.length > 0 ? messages.join(' ') : undefined;
  }
  if (isObject(value)) {
    for (const key of MESSAGE_KEYS) {
      const found = messageIn(value[key], depth + 1);
      if (found) {
        return found;
      }
    }
  }
  return undefined;
}

/**
 * Field-keyed validation errors, as Django REST Framework and others send them:
 * `{"status": ["Select a valid choice."]}` reads "status: Select a valid choice.".
 */
function fieldErrors(body: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  for (const [field, value] of Object.entries(body)) {
    if (REQUEST_ID_KEYS.includes(field) || field === 'status_code' || field === 'code') {
      continue;
    }
    const message =
      Array.isArray(value) || typeof value === 'string' || isObject(value)
        ? messageIn(value)
        : undefined;
    if (message) {
      parts.push(field === 'non_field_errors' ? message : `${field}: ${message}`);
    }
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

function requestIdIn(body: Record<string, unknown>): string | undefined {
  for (const holder of [body, isObject(body.error) ? body.error : {}]) {
    for (const key of REQUEST_ID_KEYS) {
      const value = holder[key];
      if (typeof value === 'string' || typeof value === 'number') {
        return serverText(value, MAX_REQUEST_ID) || undefined;
      }
    }
  }
  return undefined;
}

/**
 * Reads the reason out of an error body in the shapes servers commonly send: `{"detail": …}`,
 * `{"error": {"message": …}}`, `{"error": "…"}`, `{"message": …}`, problem details
 * (`title`/`detail`), `{"errors": [{"message": …}]}`, field-keyed validation errors, a JSON
 * string or list, or plain text and HTML (tags dropped). Everything returned passed
 * through {@link serverText}.
 */
export function readErrorBody(text: string, contentType: string): ErrorBody {
  const trimmed = text.replace(/^\ufeff/, '').trim();
  if (!trimmed) {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    if (/json/i.test(contentType)) {
      return {};
    }
    const plain = trimmed
      .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]*>/g, ' ');
    return { reason: serverText(plain, MAX_REASON) || undefined };
  }
  if (!isObject(parsed)) {
    return { reason: serverText(messageIn(parsed), MAX_REASON) || undefined };
  }
  const direct = isObject(parsed.error) ? messageIn(parsed.error) : undefined;
  const problem =
    typeof parsed.title === 'string' && typeof parsed.detail === 'string'
      ? `${parsed.title}: ${parsed.detail}`
      : undefined;
  const listed = Array.isArray(parsed.errors)
    ? messageIn(parsed.errors)
    : isObject(parsed.errors)
      ? fieldErrors(parsed.errors)
      : undefined;
  const known =
    direct ??
    problem ??
    MESSAGE_KEYS.map((key) => messageIn(parsed[key])).find((message) => message !== undefined) ??
    listed;
  const reason = known ?? fieldErrors(parsed);
  return { reason: serverText(reason, MAX_REASON) || undefined, requestId: requestIdIn(parsed) };
}
