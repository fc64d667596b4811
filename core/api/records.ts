/**
 * Typed views of the API's records, parsed from unknown JSON. The spec lists "typical" fields and
 * says a response may hold only some of them, so every typed field is optional except the id, a
 * field of the wrong type is left out (never guessed), and `raw` keeps the record exactly as sent,
 * unknown fields included.
 */
export type JsonObject = Record<string, unknown>;

export interface Report {
  readonly report_id: string;
  readonly report_type?: string;
  readonly sample_ids?: readonly string[];
  readonly published_at?: string;
  readonly status?: string;
  readonly download_available?: boolean;
  readonly client_id?: string;
  readonly project_id?: string;
  readonly raw: JsonObject;
}

/** A client, or a project / location / work order (spec section 2.2). */
export interface Client {
  readonly client_id: string;
  readonly name?: string;
  readonly status?: string;
  readonly updated_at?: string;
  readonly raw: JsonObject;
}

export interface Project {
  readonly project_id: string;
  readonly client_id?: string;
  readonly name?: string;
  readonly status?: string;
  readonly updated_at?: string;
  readonly raw: JsonObject;
}

/** The spec names no sample fields, so a sample is kept whole, with an id guessed for de-duplication and labels. */
export interface Sample {
  readonly id?: string;
  readonly raw: JsonObject;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Ids may arrive as strings or numbers; anything else is not an id. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim().length > 0) {
    return value;
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    return String(value);
  }
  return undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function flag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') {
    return value;
  }
  if (value === 'true' || value === 'false') {
    return value === 'true';
  }
  return undefined;
}

function idList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) {
    return undefined;
  }
  const ids = value.map(idOf).filter((id): id is string => id !== undefined);
  return ids.length === value.length ? ids : undefined;
}

/** Parses one report; undefined when it has no usable `report_id`. */
export function parseReport(value: unknown): Report | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  const reportId = idOf(value.report_id);
  if (reportId === undefined) {
    return undefined;
  }
  return {
    report_id: reportId,
    report_type: text(value.report_type),
    sample_ids: idList(value.sample_ids),
    published_at: text(value.published_at),
    status: text(value.status),
    download_available: flag(value.download_available),
    client_id: idOf(value.client_id),
    project_id: idOf(value.project_id),
    raw: value,
  };
}

export function parseClient(value: unknown): Client | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  const clientId = idOf(value.client_id);
  if (clientId === undefined) {
    return undefined;
  }
  return {
    client_id: clientId,
    name: text(value.name),
    status: text(value.status),
    updated_at: text(value.updated_at),
    raw: value,
  };
}

export function parseProject(value: unknown): Project | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  const projectId = idOf(value.project_id) ?? idOf(value.location_id) ?? idOf(value.work_order_id);
  if (projectId === undefined) {
    return undefined;
  }
  return {
    project_id: projectId,
    client_id: idOf(value.client_id),
    name: text(value.name),
    status: text(value.status),
    updated_at: text(value.updated_at),
    raw: value,
  };
}

const SAMPLE_ID_FIELDS = ['sample_id', 'id', 'lab_sample_id', 'sample_number', 'sampleId'];

export function parseSample(value: unknown): Sample | undefined {
  if (!isJsonObject(value)) {
    return undefined;
  }
  for (const field of SAMPLE_ID_FIELDS) {
    const id = idOf(value[field]);
    if (id !== undefined) {
      return { id, raw: value };
    }
  }
  return { raw: value };
}
