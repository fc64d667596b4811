import * as vscode from 'vscode';
import { withNotificationProgress } from '../ui/progress';
import { toAbortSignal } from '../cancellation';
import type { JsonObject } from '../../core/api/records';
import { Commands, EXTENSION_ID } from '../constants';
import type { MetadataDocumentProvider } from '../documents/metadataDocuments';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import { commandTargets } from '../ui/commandTargets';
import type { LabIds } from './labIds';
import { errorText } from '../../core/errors/errorText';

export type LinkKind = 'report' | 'sample';

/** `<scheme>://lab-data.lab-data/<kind>?id=…&lab=…`: opens in whichever VS Code the user runs. */
export function recordLink(kind: LinkKind, id: string, lab: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: vscode.env.uriScheme,
    authority: EXTENSION_ID,
    path: `/${kind}`,
    query: new URLSearchParams({ id, lab }).toString(),
  });
}

/** A Markdown link to a record, with `[`, `]` and `\` in its text escaped. */
export function markdownLink(kind: LinkKind, id: string, lab: string): string {
  return `[${id.replace(/[[\]\\]/g, '\\$&')}](${recordLink(kind, id, lab)
    .toString(true)
    .replace(/[()\s]/g, encodeURIComponent)})`;
}

/** The record a link command is about: a tree row, or `{ lab, kind?, id }`. */
function linkTarget(
  labs: Labs,
  args: readonly unknown[],
): { kind: LinkKind; id: string; lab: string } | undefined {
  const targets = commandTargets(args);
  const ref = targets.refs.find(
    (candidate) => candidate.kind === 'report' || candidate.kind === 'sample',
  );
  if (ref) {
    return { kind: ref.kind as LinkKind, id: ref.id, lab: ref.lab };
  }
  const id = targets.ids[0];
  const lab = targets.lab ?? (labs.signedIn.length === 1 ? labs.signedIn[0]!.lab.name : undefined);
  const kind = targets.options.kind === 'sample' ? 'sample' : 'report';
  return id && lab ? { kind, id, lab } : undefined;
}

/** `labData.copyLink` / `labData.copyMarkdownLink`: copies a deep link to a report or sample row. */
export async function copyLink(
  labs: Labs,
  markdown: boolean,
  ...args: unknown[]
): Promise<string | undefined> {
  const target = linkTarget(labs, args);
  if (!target) {
    return undefined;
  }
  const text = markdown
    ? markdownLink(target.kind, target.id, target.lab)
    : recordLink(target.kind, target.id, target.lab).toString(true);
  await vscode.env.clipboard.writeText(text);
  vscode.window.setStatusBarMessage(
    markdown
      ? vscode.l10n.t('Copied a Markdown link to {0}', target.id)
      : vscode.l10n.t('Copied a link to {0}', target.id),
    3000,
  );
  return text;
}

/**
 * Opens links to lab records (`…/report?id=&lab=`, `…/sample?id=&lab=`): a report's metadata, or a
 * sample's record found in what the lab listed (or by paging its sample list, cancellably). Only a
 * lab the user defined and signed in to is ever contacted; nothing is saved.
 */
export class DeepLinkHandler implements vscode.UriHandler {
  constructor(
    private readonly labs: Labs,
    private readonly ids: LabIds,
    private readonly documents: MetadataDocumentProvider,
    private readonly log: Logger,
  ) {}

  handleUri(uri: vscode.Uri): void {
    this.open(uri).catch((error: unknown) => void vscode.window.showErrorMessage(errorText(error)));
  }

  /** Opens what a link points at; resolves with the opened document's Uri. */
  async open(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
    await this.labs.ready;
    const kind = uri.path.replace(/^\/+/, '');
    const query = new URLSearchParams(uri.query);
    const id = query.get('id')?.trim();
    const labName = query.get('lab')?.trim();
    if ((kind !== 'report' && kind !== 'sample') || !id || id.length > 256) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t('This Lab Data link is not one Lab Data understands.'),
      );
      return undefined;
    }
    const connection = labName
      ? this.labs.get(labName)
      : this.labs.signedIn.length === 1
        ? this.labs.signedIn[0]
        : undefined;
    if (!connection?.signedIn) {
      const reason = labName
        ? this.labs.get(labName)
          ? vscode.l10n.t('Sign in to {0} to open this link.', labName)
          : vscode.l10n.t(
              'This link is for a lab named "{0}", which is not in your labData.labs settings.',
              labName.slice(0, 60),
            )
        : vscode.l10n.t('Sign in to the lab this link is for, then open it again.');
      this.log.info('Links', `Not opening ${kind} ${id}: ${reason}`);
      void vscode.window.showWarningMessage(reason);
      return undefined;
    }
    try {
      if (kind === 'report') {
        return await vscode.commands.executeCommand<vscode.Uri | undefined>(
          Commands.openReportMetadata,
          { lab: connection.lab.name, id },
        );
      }
      const record = await this.findSample(connection.lab.name, id);
      if (!record) {
        void vscode.window.showWarningMessage(
          vscode.l10n.t('{0} has no sample {1} in your scope.', connection.lab.name, id),
        );
        return undefined;
      }
      const documentUri = this.documents.uriFor(
        { lab: connection.lab.name, kind: 'sample', id, record },
        connection.lab.url.host,
      );
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(documentUri), {
        preview: false,
      });
      return documentUri;
    } catch (error) {
      this.log.warn(
        'Links',
        `Opening ${kind} ${id} of ${connection.lab.name} failed: ${errorText(error)}`,
      );
      throw error;
    }
  }

  private async findSample(lab: string, id: string): Promise<JsonObject | undefined> {
    const connection = this.labs.require(lab);
    const known = await this.ids.sample(connection, id);
    if (known.kind === 'found') {
      return known.record;
    }
    const api = connection.api;
    if (!api) {
      return undefined;
    }
    return withNotificationProgress(
      vscode.l10n.t('Looking for sample {0} in {1}…', id, lab),
      async (progress, token) => {
        let seen = 0;
        for await (const page of api.iterateSamples({}, { signal: toAbortSignal(token) })) {
          const found = page.items.find((sample) => sample.id === id);
          if (found) {
            return found.raw;
          }
          seen += page.items.length;
          progress.report({ message: vscode.l10n.t('{0} samples checked', seen) });
        }
        return undefined;
      },
    );
  }
}
