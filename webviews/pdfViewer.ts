/**
 * The PDF viewer inside the `labData.pdfPreview` webview. It loads pdf.js and pdf.js's own viewer
 * components from the extension (never from the network) and lets `PDFViewer` lay out the pages,
 * draw only those near the view (so a 300-page report opens as fast as a one-page one and memory
 * stays bounded) with selectable text, and `PDFFindController` search the text as it is typed,
 * highlighting the matching words (a phrase broken over two lines too). Around them: page
 * navigation, zoom, keyboard navigation, and Save / Metadata buttons for a report previewed from the
 * lab. For assistive technology each page is a region named "Page n of N" holding its text layer,
 * and a PDF without a text layer (a scan) says so above its pages; "getText" answers with every
 * page's text (the extension's "Show the Report's Text"). It talks to the extension only through
 * `postMessage`: the PDF's bytes come in, states and requests go out. Its sentences come from the
 * extension, already translated (`data-text`).
 */
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from 'pdfjs-dist';
import type { EventBus, PDFLinkService, PDFViewer } from 'pdfjs-dist/web/pdf_viewer.mjs';

type PdfJs = typeof import('pdfjs-dist');
type PdfJsViewer = typeof import('pdfjs-dist/web/pdf_viewer.mjs');

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The translated sentences the page shows; `{0}`, `{1}` are filled in here. */
interface Texts {
  /** "{0} of {1}": the match shown and the number of matches. */
  readonly matchOf: string;
  readonly noMatches: string;
  /** The messages shown in the page, from the extension's l10n ("{0}": pdf.js's reason). */
  readonly pageFailed: string;
  readonly protected: string;
  readonly damaged: string;
  readonly viewerFailed: string;
  /** "Page {0} of {1}": the name of a page's region, read by screen readers. */
  readonly pageLabel: string;
}

const vscode = acquireVsCodeApi();
const body = document.body;
const container = document.getElementById('viewer') as HTMLDivElement;
const message = document.getElementById('message') as HTMLDivElement;
/** A restored tab's place: fetching its report again, or offering to ("Preview Again"). */
const offer = document.getElementById('offer') as HTMLDivElement;
const previewAgain = document.getElementById('previewAgain') as HTMLButtonElement;
const pageInput = document.getElementById('page') as HTMLInputElement;
const pageCount = document.getElementById('pageCount') as HTMLSpanElement;
const zoomSelect = document.getElementById('zoom') as HTMLSelectElement;
const findInput = document.getElementById('find') as HTMLInputElement;
const findCount = document.getElementById('findCount') as HTMLSpanElement;
const noText = document.getElementById('noText') as HTMLDivElement;
const texts = JSON.parse(body.dataset.text ?? '{}') as Texts;

let pdfjs: PdfJs;
let components: PdfJsViewer;
let eventBus: EventBus;
let linkService: PDFLinkService;
let pdfViewer: PDFViewer;
let doc: PDFDocumentProxy | undefined;
let loading: PDFDocumentLoadingTask | undefined;
let zoom = 'page-width';
let firstPageReported = false;
let startedAt = 0;
/** The find controller's last count: the match shown (1-based, 0 for none) and the total. */
let matches = { current: 0, total: 0 };
/** While a search or a "goto" request is under way, the page changes it makes report nothing: its own state comes at its end. */
let searching = false;
let goingTo = 0;
let passwordAnswer: ((password: string | undefined) => void) | undefined;
/** Whether any page has a text layer (text that can be searched, copied and read aloud); undefined until known. */
let hasText: boolean | undefined;

function post(type: string, data: Record<string, unknown> = {}): void {
  vscode.postMessage({ type, ...data });
}

function format(text: string, ...values: Array<string | number>): string {
  return text.replace(/\{(\d+)\}/g, (placeholder, index: string) =>
    String(values[Number(index)] ?? placeholder),
  );
}

/** The pages whose canvas is drawn now, by number. */
function drawnPages(): number[] {
  const drawn: number[] = [];
  for (let index = 0; index < (doc?.numPages ?? 0); index++) {
    if (
      (pdfViewer.getPageView(index) as { renderingState?: number } | undefined)?.renderingState ===
      components.RenderingStates.FINISHED
    ) {
      drawn.push(index + 1);
    }
  }
  return drawn;
}

function state(): Record<string, unknown> {
  return {
    page: doc ? pdfViewer.currentPageNumber : 1,
    pages: doc?.numPages ?? 0,
    zoom,
    scale: doc ? pdfViewer.currentScale : 1,
    matches: matches.total,
    matchIndex: matches.current - 1,
    drawn: doc ? drawnPages() : [],
    hasText,
  };
}

function showError(text: string): void {
  container.hidden = true;
  message.hidden = false;
  message.textContent = text;
  body.classList.add('failed');
}

/** A restored tab without its report yet: what is happening, with "Preview Again" when it failed. */
function showOffer(text: string, button?: string): void {
  container.hidden = true;
  offer.hidden = false;
  offer.querySelector('p')!.textContent = text;
  previewAgain.hidden = button === undefined;
  previewAgain.textContent = button ?? '';
  if (button !== undefined) {
    previewAgain.focus();
  }
}

previewAgain.addEventListener('click', () => {
  previewAgain.hidden = true;
  post('previewAgain');
});

/** The extension's searches waiting for a count: each gets the next final count (a later search supersedes an earlier one). */
let findRequests: unknown[] = [];

/** Tells the extension the viewer's state; with a request's id, as that request's answer. */
function postState(requestId?: unknown): void {
  post('state', requestId === undefined ? state() : { ...state(), requestId });
}

/** `page-width`, `page-fit`, or a percentage (100 is the page's real size). */
function setZoom(value: string, requestId?: unknown): void {
  zoom = value;
  if (value === 'page-width' || value === 'page-fit') {
    pdfViewer.currentScaleValue = value;
  } else {
    const percent = Number(value);
    pdfViewer.currentScale = Number.isFinite(percent) && percent > 0 ? percent / 100 : 1;
  }
  zoomSelect.value = [...zoomSelect.options].some((option) => option.value === value)
    ? value
    : 'custom';
  postState(requestId);
}

/** Whether a canvas holds anything but white (a sampled check that the page really drew). */
function canvasPainted(canvas: HTMLCanvasElement | null | undefined): boolean {
  const context = canvas?.getContext('2d');
  if (!canvas || !context) {
    return false;
  }
  const { data } = context.getImageData(0, 0, canvas.width, Math.min(canvas.height, 400));
  for (let i = 0; i < data.length; i += 4 * 7) {
    if (data[i]! < 200 || data[i + 1]! < 200 || data[i + 2]! < 200) {
      return true;
    }
  }
  return false;
}

function goTo(number: number): void {
  if (doc) {
    pdfViewer.currentPageNumber = Math.min(Math.max(1, Math.round(number)), doc.numPages);
  }
}

/** Resolves once page `number` is drawn (at once if it is; after 10 s at the latest). */
function whenDrawn(number: number): Promise<void> {
  return new Promise((resolve) => {
    if (drawnPages().includes(number)) {
      resolve();
      return;
    }
    const listener = (event: { pageNumber: number }): void => {
      if (event.pageNumber === number) {
        done();
      }
    };
    const timer = setTimeout(() => done(), 10_000);
    const done = (): void => {
      clearTimeout(timer);
      eventBus.off('pagerendered', listener);
      resolve();
    };
    eventBus.on('pagerendered', listener);
  });
}

/**
 * Asks pdf.js's find controller to search: `''` as the text is typed (it waits for a pause),
 * `again` for the next match (`previous` for the one before), `find` at once (a request).
 */
function find(type: '' | 'again' | 'find', previous = false): void {
  const query = findInput.value;
  if (!query.trim()) {
    eventBus.dispatch('findbarclose', { source: findInput });
    showCount({ current: 0, total: 0 }, '');
    return;
  }
  searching = true;
  eventBus.dispatch('find', {
    source: findInput,
    type,
    query,
    caseSensitive: false,
    entireWord: false,
    highlightAll: true,
    findPrevious: previous,
    matchDiacritics: false,
  });
}

/** Shows the find controller's count ("3 of 12", or that nothing matched) and tells the extension. */
function showCount(count: { current: number; total: number }, query = findInput.value): void {
  matches = { current: count.current, total: count.total };
  findCount.textContent = !query.trim()
    ? ''
    : count.total === 0
      ? texts.noMatches
      : format(texts.matchOf, Math.max(1, count.current), count.total);
  searching = false;
  const answered = findRequests;
  findRequests = [];
  if (answered.length === 0) {
    postState();
  }
  answered.forEach((requestId) => postState(requestId));
}

/** Builds the viewer once pdf.js is loaded: pages, text layers and search all come from pdf.js's components. */
function createViewer(): void {
  eventBus = new components.EventBus();
  linkService = new components.PDFLinkService({ eventBus });
  // Counts once every page is searched, so a count (and the state the extension waits for) is final.
  const findController = new components.PDFFindController({
    linkService,
    eventBus,
    updateMatchesCountOnProgress: false,
  });
  pdfViewer = new components.PDFViewer({
    container,
    eventBus,
    linkService,
    findController,
    removePageBorders: true,
    // Annotations are drawn on the canvas and links placed over it; no forms, no URLs guessed in text.
    annotationMode: pdfjs.AnnotationMode.ENABLE,
    enableAutoLinking: false,
  });
  linkService.setViewer(pdfViewer);
  eventBus.on('pagesinit', () => setZoom(zoom));
  eventBus.on('pagechanging', (event: { pageNumber: number }) => {
    pageInput.value = String(event.pageNumber);
    if (!searching && goingTo === 0) {
      postState();
    }
  });
  eventBus.on(
    'pagerendered',
    (event: {
      pageNumber: number;
      source: { div: HTMLDivElement; canvas?: HTMLCanvasElement | null };
      error?: unknown;
    }) => {
      if (event.error) {
        if (!firstPageReported) {
          const text = event.error instanceof Error ? event.error.message : String(event.error);
          showError(format(texts.pageFailed, text));
          post('error', { message: text });
        }
        return;
      }
      event.source.div.classList.add('drawn');
      labelPage(event.source.div, event.pageNumber);
      if (!firstPageReported && event.pageNumber === 1) {
        firstPageReported = true;
        post('rendered', {
          page: 1,
          pages: doc?.numPages ?? 0,
          ms: Math.round(performance.now() - startedAt),
          painted: canvasPainted(event.source.canvas),
        });
      }
    },
  );
  // Without counting on progress, these come once a search is complete, and after each step through it.
  eventBus.on(
    'updatefindmatchescount',
    (event: { matchesCount: { current: number; total: number } }) => showCount(event.matchesCount),
  );
  eventBus.on(
    'updatefindcontrolstate',
    (event: { state: number; matchesCount: { current: number; total: number } }) => {
      if (event.state !== components.FindState.PENDING) {
        showCount(event.matchesCount);
      }
    },
  );
}

/** Names a page's region for assistive technology ("Page 2 of 5"); its text layer is inside it. */
function labelPage(div: HTMLDivElement, pageNumber: number): void {
  div.removeAttribute('data-l10n-id');
  div.removeAttribute('data-l10n-args');
  div.setAttribute('role', 'region');
  div.setAttribute('aria-label', format(texts.pageLabel, pageNumber, doc?.numPages ?? 0));
}

/** The text of page `number` (1-based) as lines, from pdf.js's text content (what the text layer shows). */
async function pageText(number: number): Promise<string> {
  const page = await doc!.getPage(number);
  const content = await page.getTextContent();
  let text = '';
  for (const item of content.items) {
    if ('str' in item) {
      text += item.str + (item.hasEOL ? '\n' : '');
    }
  }
  return text.replace(/[ \t]+$/gm, '').trimEnd();
}

/**
 * Finds out whether the document has a text layer, page by page until one has text (one page for
 * most reports); a scan without one says so above the pages, since nothing in it can be searched,
 * copied or read aloud.
 */
async function checkText(document: PDFDocumentProxy): Promise<void> {
  let found = false;
  for (let number = 1; number <= document.numPages && !found; number++) {
    found = (await pageText(number)).trim() !== '';
    if (document !== doc) {
      return;
    }
  }
  hasText = found;
  noText.hidden = found;
  body.classList.toggle('no-text', !found);
  // Not a "state": that answers a request, and this may arrive while one is under way.
  post('textLayer', { hasText: found });
}

async function open(data: Uint8Array): Promise<void> {
  startedAt = performance.now();
  loading = pdfjs.getDocument({
    data,
    isEvalSupported: false,
    useSystemFonts: true,
    enableXfa: false,
  });
  loading.onPassword = (update: (password: string) => void, reason: number) => {
    passwordAnswer = (password) => {
      if (password === undefined) {
        showError(texts.protected);
        post('error', {
          message: 'This PDF is protected by a password, and none was given.',
          kind: 'password',
        });
        void loading?.destroy();
      } else {
        update(password);
      }
    };
    post('password', { incorrect: reason === pdfjs.PasswordResponses.INCORRECT_PASSWORD });
  };
  try {
    doc = await loading.promise;
    if (doc.numPages < 1) {
      throw new Error('it has no pages');
    }
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    doc = undefined;
    showError(format(texts.damaged, text));
    post('error', { message: text, kind: 'corrupt' });
    return;
  }
  pageCount.textContent = String(doc.numPages);
  pageInput.max = String(doc.numPages);
  pageInput.value = '1';
  linkService.setDocument(doc);
  pdfViewer.setDocument(doc);
  void checkText(doc).catch(() => undefined);
}

window.addEventListener('message', (event: MessageEvent) => {
  const data = event.data as { type: string; [key: string]: unknown };
  switch (data.type) {
    case 'restoring':
    case 'offer':
      showOffer(String(data.text ?? ''), data.type === 'offer' ? String(data.button) : undefined);
      break;
    case 'press':
      // A test presses a button as a person would: the button itself, so a hidden one presses nothing.
      document
        .querySelector<HTMLButtonElement>(`button#${String(data.button)}:not([hidden])`)
        ?.click();
      break;
    case 'load':
      offer.hidden = true;
      container.hidden = false;
      body.classList.toggle('report', data.canSave === true);
      void open(data.data as Uint8Array);
      break;
    case 'password':
      passwordAnswer?.(typeof data.password === 'string' ? data.password : undefined);
      break;
    case 'goto': {
      goingTo++;
      goTo(Number(data.page));
      void whenDrawn(pdfViewer.currentPageNumber).then(() => {
        goingTo--;
        postState(data.requestId);
      });
      break;
    }
    case 'find':
      findRequests.push(data.requestId);
      findInput.value = String(data.query ?? '');
      find('find');
      break;
    case 'findNext':
      findRequests.push(data.requestId);
      find('again');
      break;
    case 'findPrevious':
      findRequests.push(data.requestId);
      find('again', true);
      break;
    case 'zoom':
      setZoom(String(data.value), data.requestId);
      break;
    case 'getState':
      postState(data.requestId);
      break;
    case 'getText':
      void (async () => {
        const pages: string[] = [];
        for (let number = 1; number <= (doc?.numPages ?? 0); number++) {
          pages.push(await pageText(number));
        }
        post('text', { pages });
      })().catch((error: unknown) =>
        post('text', { pages: [], error: error instanceof Error ? error.message : String(error) }),
      );
      break;
  }
});

document
  .getElementById('prev')!
  .addEventListener('click', () => goTo(pdfViewer.currentPageNumber - 1));
document
  .getElementById('next')!
  .addEventListener('click', () => goTo(pdfViewer.currentPageNumber + 1));
document.getElementById('save')!.addEventListener('click', () => post('save'));
document.getElementById('metadata')!.addEventListener('click', () => post('metadata'));
pageInput.addEventListener('change', () => goTo(Number(pageInput.value)));
zoomSelect.addEventListener('change', () => setZoom(zoomSelect.value));
findInput.addEventListener('input', () => find(''));
findInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    find('again', event.shiftKey);
  } else if (event.key === 'Escape') {
    findInput.value = '';
    find('');
    container.focus();
  }
});
window.addEventListener('resize', () => doc && zoom.startsWith('page-') && setZoom(zoom));
window.addEventListener('keydown', (event) => {
  const typing =
    event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
  const command = event.ctrlKey || event.metaKey;
  if (command && event.key.toLowerCase() === 'f') {
    event.preventDefault();
    findInput.focus();
    findInput.select();
  } else if (!doc) {
    return;
  } else if (command && (event.key === '=' || event.key === '+' || event.key === '-')) {
    event.preventDefault();
    const next = Math.round(pdfViewer.currentScale * 100 * (event.key === '-' ? 1 / 1.25 : 1.25));
    setZoom(String(Math.min(400, Math.max(25, next))));
  } else if (!typing && (event.key === 'PageDown' || event.key === 'n' || event.key === 'j')) {
    event.preventDefault();
    goTo(pdfViewer.currentPageNumber + 1);
  } else if (!typing && (event.key === 'PageUp' || event.key === 'p' || event.key === 'k')) {
    event.preventDefault();
    goTo(pdfViewer.currentPageNumber - 1);
  } else if (!typing && event.key === 'Home') {
    event.preventDefault();
    goTo(1);
  } else if (!typing && event.key === 'End') {
    event.preventDefault();
    goTo(doc.numPages);
  }
});

/**
 * pdf.js's worker, started from its code as fetched by this page rather than from its address. The
 * page's requests go through the webview's resource loader; a worker's own requests do not in every
 * VS Code: in 1.139 the worker's import of its address goes to the network, where it fails (after a
 * DNS timeout, 30 s, where there is no network), and pdf.js then parses on this thread instead. The
 * worker's code imports nothing, so a blob of it runs as it is.
 */
async function startWorker(address: string): Promise<Worker> {
  const response = await fetch(address);
  if (!response.ok) {
    throw new Error(`its worker could not be loaded (HTTP ${response.status})`);
  }
  const code = new Blob([await response.text()], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(code), { type: 'module', name: 'pdf.js worker' });
}

void (async () => {
  try {
    pdfjs = (await import(body.dataset.pdfjs!)) as PdfJs;
    pdfjs.GlobalWorkerOptions.workerPort = await startWorker(body.dataset.worker!);
    // The viewer components read pdf.js from `globalThis.pdfjsLib`, which the module above sets.
    components = (await import(body.dataset.pdfjsViewer!)) as PdfJsViewer;
    createViewer();
    post('ready');
  } catch (error) {
    showError(format(texts.viewerFailed, error instanceof Error ? error.message : String(error)));
    post('error', { message: String(error), kind: 'viewer' });
  }
})();
