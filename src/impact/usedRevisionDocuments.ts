import * as vscode from 'vscode';
import { documentName } from '../../core/files/fileNames';
import type { AmendedUse, ImpactState } from './impactState';

/** The scheme of the older side: what the record of uses knows of the revision a consumer used. */
export const USED_REVISION_SCHEME = 'labdata-used';

/** What Open Both Revisions is given: the report, the revision a consumer used and where it is recorded. */
export interface RevisionsArgs {
  readonly folder: string;
  /** The manifest's name of the lab (its section). */
  readonly section: string;
  /** The lab's origin. */
  readonly lab: string;
  readonly id: string;
  readonly usedRevision?: string;
  readonly usedSha256: string;
  readonly revision?: string;
}

export function revisionsArgs(use: AmendedUse): RevisionsArgs {
  const { affected } = use;
  return {
    folder: use.folder,
    section: use.section,
    lab: affected.use.lab,
    id: affected.use.id,
    ...(affected.use.revision !== undefined ? { usedRevision: affected.use.revision } : {}),
    usedSha256: affected.use.sha256,
    ...(affected.currentRevision !== undefined ? { revision: affected.currentRevision } : {}),
  };
}

/** Whether a command's argument is {@link RevisionsArgs}. */
export function isRevisionsArgs(value: unknown): value is RevisionsArgs {
  const args = value as Partial<RevisionsArgs> | undefined;
  return (
    typeof args === 'object' &&
    args !== null &&
    typeof args.folder === 'string' &&
    typeof args.section === 'string' &&
    typeof args.lab === 'string' &&
    typeof args.id === 'string' &&
    typeof args.usedSha256 === 'string'
  );
}

/**
 * The older revision's side, as a read-only document: the lab serves only a report's newest
 * revision (docs/lab-api.md), so this is what lab-data-uses.json and the readers' log know of the
 * revision a consumer used (revision, SHA-256, who used it and how), and it says so.
 */
export class UsedRevisionDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly state: ImpactState) {}

  uriFor(args: RevisionsArgs): vscode.Uri {
    return vscode.Uri.from({
      scheme: USED_REVISION_SCHEME,
      path: `/${documentName(args.id)} (revision ${documentName(args.usedRevision ?? '-')}).json`,
      query: new URLSearchParams({
        folder: args.folder,
        lab: args.lab,
        id: args.id,
        revision: args.usedRevision ?? '',
        sha256: args.usedSha256,
      }).toString(),
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const query = new URLSearchParams(uri.query);
    const id = query.get('id') ?? '';
    const revision = query.get('revision') || undefined;
    const sha256 = query.get('sha256') ?? '';
    const users = this.state
      .usesOf(query.get('lab') ?? '', id)
      .filter(
        (use) => use.affected.use.revision === revision && use.affected.use.sha256 === sha256,
      );
    const note = vscode.l10n.t(
      'The lab serves only the newest revision of a report; this is what {0} and the readers’ log know of revision {1}.',
      'lab-data-uses.json',
      revision ?? '?',
    );
    const record = {
      report_id: id,
      revision: revision ?? null,
      sha256,
      used_by: users.map((use) => ({
        consumer: use.affected.use.consumer,
        how: use.affected.use.how,
      })),
    };
    return `// ${note}\n${JSON.stringify(record, null, 2)}\n`;
  }
}
