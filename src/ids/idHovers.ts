import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import type { JsonObject, Report } from '../../core/api/records';
import { Commands } from '../constants';
import { serverText } from '../../core/errors/serverText';
import type { LabConnection } from '../labs/labConnection';
import { localTime } from '../views/nodes';
import { escapeMarkdown } from '../views/recordText';
import { recordLink, type LinkKind } from './deepLinks';
import type { LabIds, LabIdMatch } from './labIds';

/** Documents larger than this get no links (a generated data file is not where ids are cited). */
const MAX_LINK_TEXT = 2_000_000;
/** Ids of one document looked up at most per pass of links (each lab's answer is then kept ten minutes). */
const MAX_LINK_LOOKUPS = 20;
/**
 * Tabular data: CSV and TSV (by language, as CSV extensions name them, or by file name) and JSON
 * Lines. Every row of an exported list holds ids, so links there would underline the whole file;
 * ids in data are data, not citations. The hover card (with Preview, Metadata and Copy Link) still
 * opens on any id there.
 */
const TABULAR_LANGUAGES = /^(csv|tsv|psv|jsonl|dynamic csv)\b/i;
const TABULAR_FILES = /\.(csv|tsv|jsonl)$/i;

/** Whether a document is tabular data, where ids are not made links. */
export function isTabularDocument(
  document: Pick<vscode.TextDocument, 'languageId' | 'uri'>,
): boolean {
  return TABULAR_LANGUAGES.test(document.languageId) || TABULAR_FILES.test(document.uri.path);
}

const CARD_COMMANDS = [
  Commands.previewReport,
  Commands.saveReportPdf,
  Commands.openReportMetadata,
  Commands.copyLink,
  Commands.copyMarkdownLink,
];

function commandLink(title: string, command: string, args: unknown): string {
  return `[${title}](command:${command}?${encodeURIComponent(JSON.stringify([args]))})`;
}

/** Server text for a Markdown card: escaped, control and bidi characters dropped, length bounded. */
function shown(value: unknown): string {
  return escapeMarkdown(
    serverText(typeof value === 'object' && value !== null ? JSON.stringify(value) : value),
  );
}

/**
 * Report and sample ids of signed-in labs in any text document: a document link (Ctrl+click
 * opens the record; not in tabular data, see {@link isTabularDocument}) and a hover card with what the lab says about it and actions. Finding ids
 * costs no request; a hover asks the lab at most once per id in ten minutes (see LabIds).
 */
export class IdHoverProvider
  implements vscode.HoverProvider, vscode.DocumentLinkProvider, vscode.Disposable
{
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly ids: LabIds) {
    this.subscription = ids.onDidChange(() => this.changed.fire());
  }

  async provideDocumentLinks(
    document: vscode.TextDocument,
    token?: vscode.CancellationToken,
  ): Promise<vscode.DocumentLink[]> {
    if (isTabularDocument(document)) {
      return [];
    }
    const text = document.getText();
    if (text.length > MAX_LINK_TEXT) {
      return [];
    }
    await this.ids.ready;
    const matches = this.ids.find(text);
    const holders = await this.labsHolding(matches, token);
    return matches.flatMap((match) => {
      const labs = holders.get(`${match.kind}:${match.id}`) ?? match.labs;
      if (labs.length === 0) {
        // Every signed-in lab said it has no such record: the text only looks like an id.
        return [];
      }
      const link = new vscode.DocumentLink(
        new vscode.Range(document.positionAt(match.start), document.positionAt(match.end)),
        this.openTarget(match, labs),
      );
      link.tooltip =
        match.kind === 'report'
          ? labs.length === 1 && this.ids.severalLabs
            ? vscode.l10n.t('Open report {0} of {1}', match.id, labs[0]!.lab.name)
            : vscode.l10n.t('Open report {0}', match.id)
          : vscode.l10n.t('Open sample {0}', match.id);
      return [link];
    });
  }

  /**
   * For each report id in `matches`, the labs that may have it: those that have it, when some
   * said so; else those that did not say they have none. What is known costs nothing; ids not yet
   * known are looked up (the first {@link MAX_LINK_LOOKUPS}, within the shared budget), so an id
   * no lab has stops being a link and a link goes to the one lab that has its id.
   */
  private async labsHolding(
    matches: readonly LabIdMatch[],
    token?: vscode.CancellationToken,
  ): Promise<Map<string, LabConnection[]>> {
    const signal = token ? toAbortSignal(token) : undefined;
    let lookups = 0;
    const holders = new Map<string, LabConnection[]>();
    const unique = new Map(matches.map((match) => [`${match.kind}:${match.id}`, match]));
    await Promise.all(
      [...unique].map(async ([key, match]) => {
        if (match.kind !== 'report') {
          return;
        }
        const answers = await Promise.all(
          match.labs.map(async (lab) => {
            const known = this.ids.peekReport(lab, match.id);
            const result =
              known ??
              (lookups++ < MAX_LINK_LOOKUPS
                ? await this.ids.report(lab, match.id, signal)
                : undefined);
            return { lab, kind: result?.kind };
          }),
        );
        const found = answers.filter((answer) => answer.kind === 'found');
        holders.set(
          key,
          (found.length > 0 ? found : answers.filter((answer) => answer.kind !== 'notFound')).map(
            (answer) => answer.lab,
          ),
        );
      }),
    );
    return holders;
  }

  async provideHover(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.Hover | undefined> {
    await this.ids.ready;
    const line = document.lineAt(position.line);
    const match = this.ids
      .find(line.text)
      .find(
        (candidate) => candidate.start <= position.character && position.character <= candidate.end,
      );
    if (!match || match.labs.length === 0) {
      return undefined;
    }
    const range = new vscode.Range(position.line, match.start, position.line, match.end);
    const problems: string[] = [];
    // Every lab that may have the id is asked at once; each lab that has it gets its own card.
    const results = await Promise.all(
      match.labs.map(async (lab) => ({
        lab,
        result:
          match.kind === 'report'
            ? await this.ids.report(lab, match.id, toAbortSignal(token))
            : await this.ids.sample(lab, match.id),
      })),
    );
    if (token.isCancellationRequested) {
      return undefined;
    }
    const cards = results.flatMap(({ lab, result }) => {
      if (result.kind === 'found') {
        return [
          match.kind === 'report'
            ? this.reportCard(lab, result.record as Report)
            : this.sampleCard(lab, match.id, result.record as JsonObject),
        ];
      }
      if (result.kind === 'unavailable') {
        problems.push(`${lab.lab.name}: ${result.reason}`);
      }
      return [];
    });
    if (cards.length > 0) {
      return new vscode.Hover(cards, range);
    }
    const text =
      problems.length > 0
        ? vscode.l10n.t('{0} could not be looked up ({1}).', match.id, problems.join('; '))
        : vscode.l10n.t(
            'No lab you are signed in to has {0} {1}.',
            match.kind === 'report' ? vscode.l10n.t('report') : vscode.l10n.t('sample'),
            match.id,
          );
    return new vscode.Hover(new vscode.MarkdownString(escapeMarkdown(text)), range);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private openTarget(match: LabIdMatch, labs: readonly LabConnection[]): vscode.Uri {
    // One lab may have the id: the link goes there; else Preview Report finds which lab has it.
    const lab = labs.length === 1 ? labs[0]!.lab.name : undefined;
    if (match.kind === 'report') {
      // The report itself (its PDF), as a click on its row in the tree opens it.
      return vscode.Uri.parse(
        `command:${Commands.previewReport}?${encodeURIComponent(JSON.stringify([lab ? { lab, id: match.id } : { id: match.id }]))}`,
      );
    }
    return recordLink('sample', match.id, lab ?? '');
  }

  private reportCard(
    lab: LabConnection,
    report: Report,
    kind: LinkKind = 'report',
  ): vscode.MarkdownString {
    const ref = { lab: lab.lab.name, id: report.report_id };
    const rows: Array<[string, string | undefined]> = [
      [vscode.l10n.t('Type'), report.report_type],
      [vscode.l10n.t('Status'), report.status],
      [vscode.l10n.t('Published'), localTime(report.published_at)],
      [vscode.l10n.t('Client'), report.client_id],
      [vscode.l10n.t('Project'), report.project_id],
      [vscode.l10n.t('Samples'), report.sample_ids?.join(', ')],
      [
        vscode.l10n.t('File'),
        report.download_available === false
          ? vscode.l10n.t('not available')
          : report.download_available
            ? vscode.l10n.t('available')
            : undefined,
      ],
    ];
    const hasFile = report.download_available !== false;
    const actions = [
      ...(hasFile
        ? [
            commandLink(vscode.l10n.t('Preview'), Commands.previewReport, ref),
            commandLink(vscode.l10n.t('Save PDF'), Commands.saveReportPdf, ref),
          ]
        : []),
      commandLink(vscode.l10n.t('Open Metadata'), Commands.openReportMetadata, ref),
      commandLink(vscode.l10n.t('Copy Link'), Commands.copyLink, { ...ref, kind }),
      commandLink(vscode.l10n.t('Copy as Markdown Link'), Commands.copyMarkdownLink, {
        ...ref,
        kind,
      }),
    ];
    return this.card(vscode.l10n.t('Report {0}', report.report_id), lab, rows, actions);
  }

  private sampleCard(lab: LabConnection, id: string, record: JsonObject): vscode.MarkdownString {
    const field = (...names: string[]): string | undefined =>
      names
        .map((name) => record[name])
        .find((value): value is string => typeof value === 'string' && value.trim() !== '');
    const rows: Array<[string, string | undefined]> = [
      [vscode.l10n.t('Name'), field('sample_name', 'name', 'description', 'client_sample_id')],
      [vscode.l10n.t('Matrix'), field('matrix', 'sample_type')],
      [vscode.l10n.t('Received'), localTime(field('received_at', 'received_date', 'received'))],
      [vscode.l10n.t('Status'), field('status')],
    ];
    const ref = { lab: lab.lab.name, id, kind: 'sample' };
    const actions = [
      `[${vscode.l10n.t('Open')}](${recordLink('sample', id, lab.lab.name).toString()})`,
      commandLink(vscode.l10n.t('Copy Link'), Commands.copyLink, ref),
      commandLink(vscode.l10n.t('Copy as Markdown Link'), Commands.copyMarkdownLink, ref),
    ];
    return this.card(vscode.l10n.t('Sample {0}', id), lab, rows, actions);
  }

  private card(
    title: string,
    lab: LabConnection,
    rows: ReadonlyArray<[string, string | undefined]>,
    actions: readonly string[],
  ): vscode.MarkdownString {
    const table = rows
      .filter(([, value]) => value !== undefined && value !== '')
      .map(([label, value]) => `| ${escapeMarkdown(label)} | ${shown(value)} |`);
    const markdown = new vscode.MarkdownString(
      `**${shown(title)}** · ${shown(lab.lab.name)}\n\n| | |\n|---|---|\n${table.join('\n')}\n\n${actions.join(' · ')}`,
    );
    markdown.isTrusted = { enabledCommands: CARD_COMMANDS };
    markdown.supportHtml = false;
    return markdown;
  }
}
