import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

/** The manifest's published JSON Schema (docs/lockfile.schema.json), as the readers' tests use it. */
export const LOCKFILE_SCHEMA_FILE = path.join(root, 'docs', 'lockfile.schema.json');

let compiled: ReturnType<Ajv['compile']> | undefined;

/**
 * What the published schema says is wrong with a manifest's text (each error with where it is),
 * or an empty list when it is valid: the writers' tests hold every manifest they write to it.
 */
export function lockfileSchemaErrors(text: string): string[] {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(LOCKFILE_SCHEMA_FILE, 'utf8')) as object;
    compiled = new Ajv({ allErrors: true, strict: true }).compile(schema);
  }
  if (compiled(JSON.parse(text))) {
    return [];
  }
  return (compiled.errors ?? []).map(
    (error) =>
      `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
  );
}
