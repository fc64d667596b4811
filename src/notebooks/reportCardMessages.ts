import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import { Commands, REPORT_CARD_RENDERER_ID } from '../constants';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';

/** A report card's "Preview": the report's id and, as the notebook output gave them, its lab's name and address. */
export interface PreviewRequest {
  readonly id: string;
  readonly lab?: string;
  readonly origin?: string;
}

/** The longest id, lab name or address a card may send (a lab's ids are far shorter). */
const MAX_FIELD = 200;

/** A field of a renderer's message as text, or undefined when it is absent or not plain one-line text. */
function field(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && serverText(value, MAX_FIELD) === value
    ? value
    : undefined;
}

/**
 * A message of the report card renderer as a preview request: `{ type: 'preview', id, lab?, origin? }`
 * with an id of plain text. Anything else a notebook output's renderer sends is not one.
 */
export function previewRequestOf(message: unknown): PreviewRequest | undefined {
  if (typeof message !== 'object' || message === null) {
    return undefined;
  }
  const { type, id, lab, origin } = message as Record<string, unknown>;
  const reportId = field(id);
  return type === 'preview' && reportId !== undefined
    ? { id: reportId, lab: field(lab), origin: field(origin) }
    : undefined;
}

/**
 * The lab of this window a card names: by its name, else by the address the manifest recorded
 * (an analyst's manifest may name a lab otherwise than this window's settings do); undefined when
 * neither is one of the labs here, and the preview then finds the id among the signed-in labs.
 */
export function labOfCard(labs: Labs, request: PreviewRequest): string | undefined {
  const byName = request.lab === undefined ? undefined : labs.get(request.lab);
  if (byName) {
    return byName.lab.name;
  }
  let origin: string | undefined;
  try {
    origin = request.origin === undefined ? undefined : new URL(request.origin).origin;
  } catch {
    origin = undefined;
  }
  return labs.all.find((connection) => connection.lab.url.origin === origin)?.lab.name;
}

/** The card's labels in the display language (the renderer keeps English for any it is not sent). */
function cardText(): Record<string, string> {
  return {
    lab: vscode.l10n.t('Lab'),
    status: vscode.l10n.t('Status'),
    revision: vscode.l10n.t('Revision'),
    amended: vscode.l10n.t('Amended'),
    verified: vscode.l10n.t('Verified'),
    yes: vscode.l10n.t('yes'),
    no: vscode.l10n.t('no'),
    notRecorded: vscode.l10n.t('not recorded'),
    preview: vscode.l10n.t('Preview'),
    previewLabel: vscode.l10n.t('Preview {0}', '{0}'),
    notACard: vscode.l10n.t('This output is not a Lab Data report card.'),
  };
}

/**
 * The extension's side of the report card renderer (webviews/reportCard.ts): its labels in the
 * display language when a card asks, and its "Preview" run as `labData.previewReport` with
 * `{ lab, id }`, through the command runner (errors said there, once).
 */
export class ReportCardMessages {
  constructor(
    private readonly labs: Labs,
    private readonly log: Logger,
  ) {}

  register(): vscode.Disposable[] {
    const messaging = vscode.notebooks.createRendererMessaging(REPORT_CARD_RENDERER_ID);
    return [
      messaging.onDidReceiveMessage(({ editor, message }) => {
        if ((message as { type?: unknown } | null)?.type === 'ready') {
          void messaging.postMessage({ type: 'text', text: cardText() }, editor);
          return;
        }
        // The command runner has said why a preview failed; nothing more to say here.
        this.receive(message).catch(() => undefined);
      }),
    ];
  }

  /** Runs what a card asked (a preview); resolves with the preview command's result. */
  async receive(message: unknown): Promise<unknown> {
    const request = previewRequestOf(message);
    if (!request) {
      this.log.warn('Notebook', 'A report card sent a message that is not a preview: ignored.');
      return undefined;
    }
    await this.labs.ready;
    const lab = labOfCard(this.labs, request);
    this.log.info(
      'Notebook',
      `A report card asks to preview ${request.id}${lab ? ` of ${lab}` : ' (no lab of this window by its name or address: looked up in the signed-in labs)'}.`,
    );
    return vscode.commands.executeCommand(
      Commands.previewReport,
      lab === undefined ? { id: request.id } : { lab, id: request.id },
    );
  }
}
