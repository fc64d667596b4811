import * as vscode from 'vscode';
import { withNotificationProgress } from '../ui/progress';
import { toAbortSignal } from '../cancellation';
import { LabApiError } from '../../core/errors/errors';
import { MAX_PREVIEW_BYTES } from '../../core/api/labApi';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import { PDF_PREVIEW_VIEW_TYPE, PdfPreviewProvider } from '../preview/pdfPreview';
import type { PromptsHolder } from '../ui/prompts';
import { labForCommand, unlessKnownDown } from './labTarget';
import { commandTargets, type CommandTargets } from '../ui/commandTargets';
import { RowOpens } from './rowOpens';
import {
  askForReport,
  askForReportInLabs,
  reportInLabs,
  type ReportIdSources,
} from './reportSuggestions';
import type { LabConnection } from '../labs/labConnection';
import type { Report } from '../../core/api/records';
import { titleFor } from '../ui/prompts/labTitles';

/** How long the viewer may take to draw page 1 once the file is in hand. */
const FIRST_PAGE_TIMEOUT_MS = 60_000;

/** Opens of report rows, so a double-click keeps the preview's tab. */
const rowOpens = new RowOpens<{ pages: number } | undefined>();

/**
 * `labData.previewReport`: a report id, a report tree item, or `{ lab?, id }` (asks for an id
 * without one). Streams the report's PDF from the lab into memory (the download's checks and size
 * cap; nothing is written to the workspace), opens it in the `labData.pdfPreview` editor in a
 * preview tab titled `<id> (preview)` (`<id> (<lab>, preview)` with several labs signed in), and resolves with `{ pages }` once page 1 is on screen. It
 * rejects with the reason when the file cannot be fetched or the viewer cannot show it. As in the
 * Explorer, a click on a report row opens a preview tab and a double-click keeps it (pins it).
 */
export function previewReport(
  labs: Labs,
  previews: PdfPreviewProvider,
  prompts: PromptsHolder,
  sources: ReportIdSources,
  log: Logger,
  ...args: unknown[]
): Promise<{ pages: number } | undefined> {
  const targets = commandTargets(args);
  const ref = targets.refs.find((candidate) => candidate.kind === 'report');
  const open = () => openPreview(labs, previews, prompts, sources, log, targets);
  if (!ref || !targets.fromUi) {
    return open();
  }
  const key = `${ref.lab}\n${ref.id}`;
  const opening = rowOpens.repeatOf(key);
  return opening
    ? opening.then(
        async (shown) => {
          if (!shown) {
            return undefined;
          }
          // The second click of a double-click: the tab the first one opened is kept.
          log.info(
            'Preview',
            `${ref.id} of ${ref.lab}: opened again at once (a double-click); its tab is kept.`,
          );
          await keepTab(PdfPreviewProvider.reportUri(ref.lab, ref.id, labs.signedIn.length > 1));
          return shown;
        },
        // The first click says why it failed; its second says nothing more.
        () => undefined,
      )
    : rowOpens.track(key, open());
}

/** Keeps (pins) the preview tab of `uri`, as a double-click keeps a file's tab in the Explorer. */
async function keepTab(uri: vscode.Uri): Promise<void> {
  await vscode.commands.executeCommand('vscode.openWith', uri, PDF_PREVIEW_VIEW_TYPE, {
    preview: false,
  });
  const active = vscode.window.tabGroups.activeTabGroup.activeTab;
  if (
    active?.isPreview &&
    active.input instanceof vscode.TabInputCustom &&
    active.input.uri.toString() === uri.toString()
  ) {
    await vscode.commands.executeCommand('workbench.action.keepEditor');
  }
}

/** Fetches a report's PDF and opens it in a preview tab; resolves once its first page is drawn. */
async function openPreview(
  labs: Labs,
  previews: PdfPreviewProvider,
  prompts: PromptsHolder,
  sources: ReportIdSources,
  log: Logger,
  targets: CommandTargets,
): Promise<{ pages: number } | undefined> {
  const ref = targets.refs.find((candidate) => candidate.kind === 'report');
  const labName = ref?.lab ?? targets.lab;
  const idGiven = ref?.id ?? targets.ids[0];
  let connection: LabConnection | undefined;
  let asked: Report | undefined;
  if (labName === undefined && labs.signedIn.length > 1) {
    const title = titleFor(
      labs.signedIn.map((signedIn) => signedIn.lab.name).join(', '),
      'previewReport',
    );
    // Several labs (a link Ctrl+clicked in code, the palette): the one that has the id, asked only when several do.
    const found =
      idGiven !== undefined
        ? await reportInLabs(prompts.current, labs.signedIn, idGiven, title)
        : await askForReportInLabs(prompts.current, labs.signedIn, sources, title);
    connection = found?.connection;
    asked = found?.report;
  } else {
    connection = await labForCommand(labs, prompts.current, labName);
    // Without an id, asked as Find Report asks: suggestions, part of one, an unknown id said in the picker.
    asked =
      connection?.api && idGiven === undefined
        ? await askForReport(
            prompts.current,
            connection.api,
            sources,
            titleFor(connection.lab.name, 'previewReport'),
          )
        : undefined;
  }
  const api = connection?.api;
  const id = idGiven ?? asked?.report_id;
  if (!connection || !api || !id) {
    return undefined;
  }
  unlessKnownDown(connection);
  if (asked) {
    await sources.recent.remember(connection.lab.name, asked.report_id);
  }
  if (ref?.downloadable === false || asked?.download_available === false) {
    throw new LabApiError('notFound', vscode.l10n.t('Report {0} has no file to preview.', id));
  }
  const started = Date.now();
  const bytes = await withNotificationProgress(
    vscode.l10n.t('Opening {0} from {1}…', id, connection.lab.name),
    (progress, token) => {
      let reported = 0;
      return api.fetchReportFile(id, {
        maxBytes: Math.min(api.maxFileBytes, MAX_PREVIEW_BYTES),
        signal: toAbortSignal(token),
        onProgress: (received, total) => {
          if (total && received - reported > total / 20) {
            progress.report({ increment: ((received - reported) / total) * 100 });
            reported = received;
          }
        },
      });
    },
  );
  const uri = PdfPreviewProvider.reportUri(connection.lab.name, id, labs.signedIn.length > 1);
  previews.holdReport(uri, bytes, connection.lab.name, id);
  await vscode.commands.executeCommand('vscode.openWith', uri, PDF_PREVIEW_VIEW_TYPE, {
    preview: true,
  });
  const session = await previews.session(uri);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const shown = await Promise.race([
    session.firstPage,
    new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () =>
            reject(
              new LabApiError(
                'timeout',
                vscode.l10n.t(
                  'The preview of {0} did not show its first page within a minute.',
                  id,
                ),
              ),
            ),
          FIRST_PAGE_TIMEOUT_MS,
        )),
    ),
  ]).finally(() => clearTimeout(timer));
  log.info(
    'Preview',
    `${id} of ${connection.lab.name}: ${bytes.length} bytes, ${shown.pages} page(s), first page on screen ${Date.now() - started} ms after the command.`,
  );
  return { pages: shown.pages };
}

/**
 * A report's PDF fetched again for its preview tab, restored after a window reload (the tab's
 * address holds its lab and id): once the tokens are read back, from the lab if still signed in.
 */
export async function fetchReportAgain(labs: Labs, lab: string, id: string): Promise<Uint8Array> {
  await labs.ready;
  const connection = labs.get(lab);
  if (!connection) {
    throw new LabApiError('notFound', vscode.l10n.t('{0} is no longer one of your labs.', lab));
  }
  const api = connection.api;
  if (!api) {
    throw new LabApiError('unauthorized', vscode.l10n.t('Sign in to {0} first.', lab));
  }
  return api.fetchReportFile(id, { maxBytes: Math.min(api.maxFileBytes, MAX_PREVIEW_BYTES) });
}
