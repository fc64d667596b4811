import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { documentName } from '../../core/files/fileNames';
import { MAX_PREVIEW_BYTES } from '../../core/api/labApi';
import { Commands } from '../constants';
import type { Logger } from '../log';
import type { PromptsHolder } from '../ui/prompts';
import { WebviewPage, escapeHtml } from '../ui/webviewPage';
import { serverText } from '../../core/errors/serverText';
import { errorText } from '../../core/errors/errorText';

export const PDF_PREVIEW_VIEW_TYPE = 'labData.pdfPreview';
/** Reports previewed from a lab live in memory under this scheme, never in the workspace. */
export const PREVIEW_SCHEME = 'labdata-pdf';
/** How long a request to the viewer (tests, diagnostics) waits for its answer: a search of a long PDF takes seconds. */
const ASK_TIMEOUT_MS = 60_000;

/** What the viewer said last: its page, page count, zoom, search matches, or its failure. */
export interface PreviewState {
  /** `offered`: a tab restored after a reload whose report could not be fetched again offers "Preview Again" in place. */
  readonly status: 'loading' | 'shown' | 'error' | 'offered';
  readonly page?: number;
  readonly pages?: number;
  readonly matches?: number;
  readonly matchIndex?: number;
  readonly drawn?: readonly number[];
  readonly zoom?: string;
  /** Milliseconds from opening the document to page 1 on screen. */
  readonly firstPageMs?: number;
  /** Whether page 1's canvas held drawn pixels. */
  readonly painted?: boolean;
  /** Whether the PDF has a text layer (false: its pages are images only); undefined until known. */
  readonly hasText?: boolean;
  readonly error?: string;
  /** What a restored preview offers in place of the report (its words and button), when `offered`. */
  readonly offer?: string;
}

/** Fetches a report's PDF again, for a preview tab restored after a window reload. */
export type FetchReport = (lab: string, id: string) => Promise<Uint8Array>;

/**
 * A PDF open in the preview: its bytes and, for a lab report, which one. A report's tab restored
 * after a window reload has no bytes until they are fetched again.
 */
class PdfDocument implements vscode.CustomDocument {
  constructor(
    readonly uri: vscode.Uri,
    public bytes: Uint8Array | undefined,
    readonly report: { readonly lab: string; readonly id: string } | undefined,
    private readonly onDispose: () => void,
  ) {}

  dispose(): void {
    this.onDispose();
  }
}

/** One open preview panel and the promise of its first page. */
class PreviewSession {
  state: PreviewState = { status: 'loading' };
  readonly firstPage: Promise<{ pages: number }>;
  private settle!: { resolve: (value: { pages: number }) => void; reject: (error: Error) => void };
  /** Requests waiting for the viewer's answer, by the id sent with each. */
  private readonly pending = new Map<
    number,
    { readonly answer: (state: PreviewState) => void; readonly fail: (reason: Error) => void }
  >();
  private nextRequestId = 1;
  private textWaiters: Array<(answer: { pages: string[]; error?: string }) => void> = [];

  constructor(
    readonly document: PdfDocument,
    readonly panel: vscode.WebviewPanel,
  ) {
    this.firstPage = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // The command awaits it; a panel opened by "Open With…" may never be awaited.
    this.firstPage.catch(() => undefined);
  }

  /** Records what the viewer said unasked (whether the PDF has text), answering no request. */
  note(next: PreviewState): void {
    this.state = next;
  }

  /**
   * Records a state the viewer reports; one carrying a request's id answers that request. The
   * viewer also reports unasked (a page scrolled into view, a search's count), and such a state
   * answers nothing: taken as an answer, a state sent before a request was handled (the page a
   * zoom to fit scrolled to, arriving after "zoom to 200 %" was sent) would answer it.
   */
  update(next: PreviewState, requestId?: unknown): void {
    this.state = next;
    if (typeof requestId === 'number') {
      this.pending.get(requestId)?.answer(next);
    }
  }

  shown(pages: number): void {
    this.settle.resolve({ pages });
  }

  failed(error: Error): void {
    this.settle.reject(error);
  }

  /** The viewer's answer to "getText": the text of each page. */
  textArrived(answer: { pages: string[]; error?: string }): void {
    const waiters = this.textWaiters;
    this.textWaiters = [];
    waiters.forEach((waiter) => waiter(answer));
  }

  /** The next text the viewer sends. */
  nextText(): Promise<{ pages: string[]; error?: string }> {
    return new Promise((resolve) => this.textWaiters.push(resolve));
  }

  /** What the preview shows, in words: the report's id, or the file's path in the workspace. */
  get name(): string {
    return this.document.report?.id ?? vscode.workspace.asRelativePath(this.document.uri);
  }

  /**
   * A new request id, and the state the viewer answers it with; fails when no answer comes within
   * `timeoutMs`, or when the panel closes first.
   */
  request(
    what: string,
    timeoutMs: number,
  ): { readonly id: number; readonly answer: Promise<PreviewState> } {
    const id = this.nextRequestId++;
    const answer = new Promise<PreviewState>((resolve, reject) => {
      // Settled once, whichever comes first: the answer, the time limit, or the panel closing.
      const settle = (): void => {
        clearTimeout(timer);
        this.pending.delete(id);
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(`The preview did not answer "${what}" within ${timeoutMs / 1000} s.`));
      }, timeoutMs);
      this.pending.set(id, {
        answer: (state) => {
          settle();
          resolve(state);
        },
        fail: (reason) => {
          settle();
          reject(reason);
        },
      });
    });
    return { id, answer };
  }

  /** Fails every request still waiting (the panel closed, or a message could not be sent). */
  abandon(reason: Error): void {
    [...this.pending.values()].forEach((request) => request.fail(reason));
  }
}

/**
 * The read-only custom editor `labData.pdfPreview`: shows any PDF (a workspace file opened from
 * the Explorer or Quick Open, or a lab report held in memory) in a webview running pdf.js from the
 * extension, under a strict Content-Security-Policy with a nonce and no network access. It is the
 * default editor for `*.pdf` (a saved report should read as a report, not as PDF source); VS
 * Code's Open With… still offers the others, and `workbench.editorAssociations` changes it.
 */
export class PdfPreviewProvider
  implements vscode.CustomReadonlyEditorProvider<PdfDocument>, vscode.Disposable
{
  /** Report PDFs fetched for preview, by URI, while a preview of them may open. */
  private readonly reports = new Map<
    string,
    { readonly bytes: Uint8Array; readonly lab: string; readonly id: string }
  >();
  private readonly sessions = new Map<string, PreviewSession>();
  private readonly opened = new vscode.EventEmitter<PreviewSession>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly prompts: PromptsHolder,
    private readonly log: Logger,
    /** Fetches a restored tab's report again (its lab and id are in the tab's address). */
    private readonly fetchAgain?: FetchReport,
  ) {}

  /**
   * The URI a report's preview opens under; its name is the tab title, `<id> (preview)`, or
   * `<id> (<lab>, preview)` when several labs are signed in (two labs may use one id).
   */
  static reportUri(lab: string, id: string, showLab = false): vscode.Uri {
    return vscode.Uri.from({
      scheme: PREVIEW_SCHEME,
      path: showLab
        ? `/${documentName(id, 'report')} (${documentName(lab, 'lab')}, preview)`
        : `/${documentName(id, 'report')} (preview)`,
      query: new URLSearchParams({ lab, id }).toString(),
    });
  }

  /** The lab and id in a report preview's address (an address from before ids were in it: its name). */
  static reportOf(uri: vscode.Uri): { lab: string; id: string } | undefined {
    const query = new URLSearchParams(uri.query);
    const lab = query.get('lab');
    const id = query.get('id') ?? /^\/(.+?) \((?:.+, )?preview\)$/.exec(uri.path)?.[1];
    return uri.scheme === PREVIEW_SCHEME && lab && id ? { lab, id } : undefined;
  }

  /** As a person's click on a button of the viewer of `uri` ("previewAgain"), for tests. */
  async press(uri: vscode.Uri, button: string): Promise<boolean> {
    const session = await this.session(uri);
    return session.panel.webview.postMessage({ type: 'press', button });
  }

  /**
   * Keeps a report's bytes for the preview about to open; a tab of it already open without them
   * (restored after a reload, its fetch failed) shows them at once.
   */
  holdReport(uri: vscode.Uri, bytes: Uint8Array, lab: string, id: string): void {
    const open = this.sessions.get(uri.toString());
    if (open && !open.document.bytes) {
      open.document.bytes = bytes;
      void this.load(open, bytes);
      return;
    }
    this.reports.set(uri.toString(), { bytes, lab, id });
  }

  /** The open preview of `uri`, waiting up to `timeoutMs` for it to open. */
  async session(uri: vscode.Uri, timeoutMs = 30_000): Promise<PreviewSession> {
    const key = uri.toString();
    const existing = this.sessions.get(key);
    if (existing) {
      return existing;
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        subscription.dispose();
        reject(new LabApiError('timeout', vscode.l10n.t('The preview did not open.')));
      }, timeoutMs);
      const subscription = this.opened.event((session) => {
        if (session.document.uri.toString() === key) {
          clearTimeout(timer);
          subscription.dispose();
          resolve(session);
        }
      });
    });
  }

  /** What the viewer of `uri` reports now (tests, diagnostics). */
  stateOf(uri: vscode.Uri): PreviewState | undefined {
    return this.sessions.get(uri.toString())?.state;
  }

  /** Sends the viewer of `uri` a request (goto, find, findNext, findPrevious, zoom, getState) and resolves with the state it answers. */
  async ask(
    uri: vscode.Uri,
    request: { readonly type: string; readonly [key: string]: unknown },
  ): Promise<PreviewState> {
    const session = await this.session(uri);
    const { id, answer } = session.request(request.type, ASK_TIMEOUT_MS);
    if (!(await session.panel.webview.postMessage({ ...request, requestId: id }))) {
      session.abandon(new Error(`The preview could not be sent "${request.type}" (it is closed).`));
    }
    return answer;
  }

  /**
   * The text of the PDF open in the preview of `uri`, page by page, as pdf.js reads it (its text
   * layer), and what the preview shows (the report's id or the file's path). Empty pages for a PDF
   * of images only.
   */
  async text(uri: vscode.Uri): Promise<{ name: string; pages: string[] }> {
    const session = await this.session(uri);
    await session.firstPage;
    const answer = session.nextText();
    await session.panel.webview.postMessage({ type: 'getText' });
    const { pages, error } = await answer;
    if (error !== undefined) {
      throw new LabApiError(
        'invalidResponse',
        vscode.l10n.t('The text of the PDF could not be read ({0}).', error.slice(0, 300)),
      );
    }
    return { name: session.name, pages };
  }

  /** The PDF shown in the active editor, if it is a preview. */
  activePreview(): vscode.Uri | undefined {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return input instanceof vscode.TabInputCustom && input.viewType === PDF_PREVIEW_VIEW_TYPE
      ? input.uri
      : undefined;
  }

  async openCustomDocument(uri: vscode.Uri): Promise<PdfDocument> {
    const key = uri.toString();
    const held = this.reports.get(key);
    if (held) {
      return new PdfDocument(uri, held.bytes, { lab: held.lab, id: held.id }, () =>
        this.reports.delete(key),
      );
    }
    // A tab restored after a window reload: its report is fetched again once the viewer is up.
    const report = PdfPreviewProvider.reportOf(uri);
    if (report) {
      return new PdfDocument(uri, undefined, report, () => undefined);
    }
    if (uri.scheme === PREVIEW_SCHEME) {
      throw new LabApiError(
        'notFound',
        vscode.l10n.t('This preview is no longer available; preview the report again.'),
      );
    }
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.size > MAX_PREVIEW_BYTES) {
      throw new LabApiError(
        'invalidResponse',
        vscode.l10n.t(
          'The file is larger than the {0} MiB limit.',
          Math.round(MAX_PREVIEW_BYTES / 1024 / 1024),
        ),
      );
    }
    return new PdfDocument(
      uri,
      await vscode.workspace.fs.readFile(uri),
      undefined,
      () => undefined,
    );
  }

  resolveCustomEditor(document: PdfDocument, panel: vscode.WebviewPanel): void {
    const key = document.uri.toString();
    const session = new PreviewSession(document, panel);
    this.sessions.set(key, session);
    const webview = panel.webview;
    webview.options = {
      enableScripts: true,
      localResourceRoots: [
        vscode.Uri.joinPath(this.extensionUri, 'dist'),
        vscode.Uri.joinPath(this.extensionUri, 'media'),
      ],
    };
    webview.html = this.html(webview, session.name);
    const started = Date.now();
    const subscriptions = [
      webview.onDidReceiveMessage(
        (message: { type: string; [key: string]: unknown }) =>
          void this.onMessage(session, message, started),
      ),
      panel.onDidDispose(() => {
        subscriptions.forEach((subscription) => subscription.dispose());
        if (this.sessions.get(key) === session) {
          this.sessions.delete(key);
        }
        const closed = new LabApiError('cancelled', vscode.l10n.t('The preview was closed.'));
        session.failed(closed);
        session.abandon(closed);
      }),
    ];
    this.opened.fire(session);
  }

  dispose(): void {
    this.opened.dispose();
    this.reports.clear();
  }

  private async onMessage(
    session: PreviewSession,
    message: { type: string; [key: string]: unknown },
    started: number,
  ): Promise<void> {
    const { document, panel } = session;
    switch (message.type) {
      case 'ready':
        if (document.bytes) {
          await this.load(session, document.bytes);
        } else {
          await this.restore(session);
        }
        break;
      case 'previewAgain':
        await this.restore(session);
        break;
      case 'rendered': {
        const pages = Number(message.pages);
        session.update({
          ...session.state,
          status: 'shown',
          page: 1,
          pages,
          firstPageMs: Date.now() - started,
          painted: message.painted === true,
        });
        this.log.info(
          'Preview',
          `${document.report ? `${document.report.id} of ${document.report.lab}` : vscode.workspace.asRelativePath(document.uri)}: page 1 of ${pages} on screen in ${Date.now() - started} ms (viewer: ${Number(message.ms)} ms).`,
        );
        session.shown(pages);
        break;
      }
      case 'state':
        session.update(
          {
            ...session.state,
            page: Number(message.page),
            pages: Number(message.pages),
            matches: Number(message.matches),
            matchIndex: Number(message.matchIndex),
            drawn: Array.isArray(message.drawn) ? message.drawn.map(Number) : undefined,
            zoom: String(message.zoom),
            hasText: typeof message.hasText === 'boolean' ? message.hasText : undefined,
          },
          message.requestId,
        );
        break;
      case 'textLayer':
        session.note({ ...session.state, hasText: message.hasText === true });
        break;
      case 'text':
        session.textArrived({
          pages: Array.isArray(message.pages) ? message.pages.map(String) : [],
          ...(message.error === undefined ? {} : { error: String(message.error) }),
        });
        break;
      case 'error': {
        const text = String(message.message ?? '').slice(0, 300);
        session.update({ ...session.state, status: 'error', error: text });
        this.log.warn(
          'Preview',
          `${document.report?.id ?? vscode.workspace.asRelativePath(document.uri)}: ${text}`,
        );
        session.failed(
          new LabApiError(
            'invalidResponse',
            message.kind === 'password'
              ? vscode.l10n.t('The PDF is protected by a password.')
              : vscode.l10n.t('The PDF is damaged or incomplete and cannot be shown ({0}).', text),
          ),
        );
        break;
      }
      case 'password': {
        const password = await this.prompts.current.password(
          document.report?.id ?? vscode.workspace.asRelativePath(document.uri),
          message.incorrect === true,
        );
        await panel.webview.postMessage({ type: 'password', password });
        break;
      }
      case 'save':
        if (document.report) {
          await vscode.commands.executeCommand(Commands.saveReportPdf, {
            lab: document.report.lab,
            id: document.report.id,
          });
        }
        break;
      case 'metadata':
        if (document.report) {
          await vscode.commands.executeCommand(Commands.openReportMetadata, {
            lab: document.report.lab,
            id: document.report.id,
          });
        }
        break;
    }
  }

  private async load(session: PreviewSession, bytes: Uint8Array): Promise<void> {
    // A copy, so the webview gets a plain Uint8Array (a Node Buffer would arrive as JSON).
    await session.panel.webview.postMessage({
      type: 'load',
      data: new Uint8Array(bytes),
      canSave: session.document.report !== undefined,
    });
  }

  /**
   * A report's tab restored after a window reload (or its "Preview Again"): the report fetched
   * again and shown, or, when that fails, the reason and "Preview Again" in its place.
   */
  private async restore(session: PreviewSession): Promise<void> {
    const { document, panel } = session;
    const report = document.report;
    if (!report) {
      return;
    }
    session.note({ status: 'loading' });
    await panel.webview.postMessage({
      type: 'restoring',
      text: vscode.l10n.t('Fetching {0} from {1} again…', report.id, report.lab),
    });
    try {
      if (!this.fetchAgain) {
        throw new LabApiError('notFound', vscode.l10n.t('The preview cannot fetch it again.'));
      }
      document.bytes = await this.fetchAgain(report.lab, report.id);
      await this.load(session, document.bytes);
    } catch (error) {
      const text = vscode.l10n.t(
        '{0} of {1} was open before the window reloaded, but it could not be fetched again: {2}',
        report.id,
        report.lab,
        serverText(errorText(error), 300),
      );
      const button = vscode.l10n.t('Preview Again');
      this.log.warn('Preview', `${report.id} of ${report.lab}: ${text}`);
      session.note({ status: 'offered', offer: `${text} ${button}` });
      await panel.webview.postMessage({ type: 'offer', text, button });
    }
  }

  private html(webview: vscode.Webview, name: string): string {
    const page = new WebviewPage(webview, this.extensionUri);
    const resource = (...path: string[]): string => page.resource(...path);
    const source = page.cspSource;
    const csp = `default-src 'none'; img-src ${source} blob: data:; style-src ${source} 'unsafe-inline'; font-src ${source} data: blob:; script-src 'nonce-${page.nonce}' ${source}; worker-src ${source} blob:; connect-src ${source}`;
    const t = (text: string): string => escapeHtml(text);
    const zooms: Array<[string, string]> = [
      ['page-width', vscode.l10n.t('Fit Width')],
      ['page-fit', vscode.l10n.t('Fit Page')],
      ['50', '50%'],
      ['75', '75%'],
      ['100', '100%'],
      ['125', '125%'],
      ['150', '150%'],
      ['200', '200%'],
      ['custom', vscode.l10n.t('Custom')],
    ];
    // The viewer fills in the numbers: l10n.t without arguments keeps the placeholders.
    const texts = {
      matchOf: vscode.l10n.t('{0} of {1}'),
      noMatches: vscode.l10n.t('No results'),
      pageFailed: vscode.l10n.t('This PDF could not be shown: {0}'),
      protected: vscode.l10n.t('This PDF is protected by a password.'),
      damaged: vscode.l10n.t('This PDF is damaged or incomplete and cannot be shown ({0}).'),
      viewerFailed: vscode.l10n.t('The PDF viewer could not start: {0}'),
      pageLabel: vscode.l10n.t('Page {0} of {1}'),
    };
    return page.document(
      csp,
      'pdfPreview.css',
      `data-pdfjs="${resource('dist', 'pdfjs', 'pdf.min.mjs')}" data-worker="${resource('dist', 'pdfjs', 'pdf.worker.min.mjs')}" data-pdfjs-viewer="${resource('dist', 'pdfjs', 'pdf_viewer.mjs')}" data-text="${t(JSON.stringify(texts))}"`,
      `<div id="toolbar" role="toolbar" aria-label="${t(vscode.l10n.t('PDF preview'))}">
  <button id="prev" title="${t(vscode.l10n.t('Previous Page (Page Up)'))}" aria-label="${t(vscode.l10n.t('Previous Page'))}">&#x2191;</button>
  <button id="next" title="${t(vscode.l10n.t('Next Page (Page Down)'))}" aria-label="${t(vscode.l10n.t('Next Page'))}">&#x2193;</button>
  <label>${t(vscode.l10n.t('Page'))} <input id="page" type="number" min="1" value="1" aria-label="${t(vscode.l10n.t('Go to page'))}"></label>
  <span>${t(vscode.l10n.t('of'))} <span id="pageCount">…</span></span>
  <select id="zoom" aria-label="${t(vscode.l10n.t('Zoom'))}">${zooms.map(([value, label]) => `<option value="${value}"${value === 'custom' ? ' hidden' : ''}>${t(label)}</option>`).join('')}</select>
  <input id="find" type="search" placeholder="${t(vscode.l10n.t('Find (Ctrl+F)'))}" aria-label="${t(vscode.l10n.t('Find in the PDF'))}">
  <span id="findCount" aria-live="polite"></span>
  <span class="spacer"></span>
  <button id="metadata" class="report-only" title="${t(vscode.l10n.t("Open the report's metadata"))}">${t(vscode.l10n.t('Metadata'))}</button>
  <button id="save" class="report-only" title="${t(vscode.l10n.t('Save this report into the workspace'))}">${t(vscode.l10n.t('Save to Workspace'))}</button>
</div>
<div id="noText" role="status" hidden>${t(vscode.l10n.t('This PDF has no text layer: its pages are images, so their text cannot be searched, copied or read aloud.'))}</div>
<div id="pages"><div id="viewer" tabindex="0" role="document" aria-label="${t(vscode.l10n.t('PDF pages'))}"><div class="pdfViewer"></div></div></div>
<div id="message" role="alert" hidden></div>
<div id="offer" role="status" hidden><p></p><button id="previewAgain" hidden></button></div>
<script type="module" nonce="${page.nonce}" src="${resource('dist', 'webview', 'pdfViewer.js')}"></script>`,
      vscode.l10n.t('{0} (PDF preview)', name),
    );
  }
}
