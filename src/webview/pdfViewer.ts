/**
 * The PDF viewer inside the `labData.pdfPreview` webview. It loads pdf.js from the extension (the
 * module and its worker, never from the network), renders only the pages near the viewport (so a
 * 300-page report opens as fast as a one-page one and memory stays bounded), and offers page
 * navigation, zoom, text search with highlights, selectable text, keyboard navigation, and Save /
 * Metadata buttons for a report previewed from the lab. It talks to the extension only through
 * `postMessage`: the PDF's bytes come in, states and requests go out.
 */
import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';

type PdfJs = typeof import('pdfjs-dist');

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const body = document.body;
const viewer = document.getElementById('viewer') as HTMLDivElement;
const message = document.getElementById('message') as HTMLDivElement;
const pageInput = document.getElementById('page') as HTMLInputElement;
const pageCount = document.getElementById('pageCount') as HTMLSpanElement;
const zoomSelect = document.getElementById('zoom') as HTMLSelectElement;
const findInput = document.getElementById('find') as HTMLInputElement;
const findCount = document.getElementById('findCount') as HTMLSpanElement;

/** Pages kept drawn at most; farther ones give their canvas back. */
const MAX_DRAWN_PAGES = 12;
/** Pages drawn ahead of and behind the visible ones. */
const LOOKAHEAD = '150% 0px';

interface PageView {
  readonly number: number;
  readonly div: HTMLDivElement;
  width: number;
  height: number;
  drawn?: { readonly scale: number; readonly textDivs: readonly HTMLElement[]; readonly texts: readonly string[] };
  drawing?: Promise<void>;
}

interface Match {
  readonly page: number;
  readonly item: number;
}

let pdfjs: PdfJs;
let doc: PDFDocumentProxy | undefined;
let loading: PDFDocumentLoadingTask | undefined;
let pages: PageView[] = [];
let scale = 1;
let zoom = 'page-width';
let current = 1;
let firstPageReported = false;
let startedAt = 0;
let matches: Match[] = [];
let matchIndex = -1;
let query = '';
const pageTexts = new Map<number, string[]>();
let passwordAnswer: ((password: string | undefined) => void) | undefined;
const observer = new IntersectionObserver((entries) => entries.filter((entry) => entry.isIntersecting).forEach((entry) => void draw(pages[Number((entry.target as HTMLElement).dataset.page) - 1]!)), { root: viewer, rootMargin: LOOKAHEAD });

function post(type: string, data: Record<string, unknown> = {}): void {
  vscode.postMessage({ type, ...data });
}

function state(): Record<string, unknown> {
  return { page: current, pages: pages.length, zoom, scale, matches: matches.length, matchIndex, drawn: pages.filter((page) => page.drawn).map((page) => page.number) };
}

function showError(text: string): void {
  viewer.hidden = true;
  message.hidden = false;
  message.textContent = text;
  body.classList.add('failed');
}

/** The scale that fits page 1's width or whole page into the viewer, or a percentage. */
function scaleFor(value: string): number {
  const first = pages[0];
  if (!first) {
    return 1;
  }
  const width = Math.max(200, viewer.clientWidth - 32);
  const height = Math.max(200, viewer.clientHeight - 24);
  if (value === 'page-width') {
    return width / first.width;
  }
  if (value === 'page-fit') {
    return Math.min(width / first.width, height / first.height);
  }
  const percent = Number(value);
  return Number.isFinite(percent) && percent > 0 ? percent / 100 : 1;
}

function layout(): void {
  for (const page of pages) {
    page.div.style.width = `${Math.floor(page.width * scale)}px`;
    page.div.style.height = `${Math.floor(page.height * scale)}px`;
    page.div.style.setProperty('--scale-factor', String(scale));
  }
}

function setZoom(value: string): void {
  const keep = current;
  zoom = value;
  scale = scaleFor(value);
  zoomSelect.value = [...zoomSelect.options].some((option) => option.value === value) ? value : 'custom';
  for (const page of pages) {
    forget(page);
  }
  layout();
  goTo(keep);
  post('state', state());
}

function forget(page: PageView): void {
  page.drawn = undefined;
  page.div.replaceChildren();
  page.div.classList.remove('drawn');
}

/** Draws a page (canvas and text layer) at the current scale, once; draws are bounded in number. */
function draw(page: PageView): Promise<void> {
  if (!doc || (page.drawn && page.drawn.scale === scale)) {
    return Promise.resolve();
  }
  page.drawing ??= (async () => {
    const at = scale;
    const pdfPage: PDFPageProxy = await doc!.getPage(page.number);
    const viewport = pdfPage.getViewport({ scale: at });
    const ratio = window.devicePixelRatio || 1;
    const canvas = document.createElement('canvas');
    canvas.width = Math.floor(viewport.width * ratio);
    canvas.height = Math.floor(viewport.height * ratio);
    canvas.setAttribute('aria-label', `Page ${page.number}`);
    const text = document.createElement('div');
    text.className = 'textLayer';
    await pdfPage.render({ canvas, canvasContext: canvas.getContext('2d')!, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] }).promise;
    const layer = new pdfjs.TextLayer({ textContentSource: pdfPage.streamTextContent(), container: text, viewport });
    await layer.render();
    if (at !== scale) {
      return;
    }
    page.div.replaceChildren(canvas, text);
    page.div.classList.add('drawn');
    page.drawn = { scale: at, textDivs: layer.textDivs, texts: layer.textContentItemsStr };
    highlight(page);
    if (!firstPageReported && page.number === 1) {
      firstPageReported = true;
      post('rendered', { page: 1, pages: pages.length, ms: Math.round(performance.now() - startedAt), painted: canvasPainted(canvas) });
    }
    release();
  })()
    .catch((error: unknown) => {
      if (!firstPageReported) {
        showError(`This PDF could not be shown: ${error instanceof Error ? error.message : String(error)}`);
        post('error', { message: error instanceof Error ? error.message : String(error) });
      }
    })
    .finally(() => (page.drawing = undefined));
  return page.drawing;
}

/** Whether a canvas holds anything but white (a sampled check that the page really drew). */
function canvasPainted(canvas: HTMLCanvasElement): boolean {
  const context = canvas.getContext('2d');
  if (!context) {
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

/** Gives back the canvases of the pages farthest from the current one. */
function release(): void {
  const drawn = pages.filter((page) => page.drawn);
  if (drawn.length <= MAX_DRAWN_PAGES) {
    return;
  }
  drawn
    .sort((a, b) => Math.abs(b.number - current) - Math.abs(a.number - current))
    .slice(0, drawn.length - MAX_DRAWN_PAGES)
    .forEach(forget);
}

function goTo(number: number): void {
  const page = pages[Math.min(Math.max(1, Math.round(number)), pages.length) - 1];
  if (!page) {
    return;
  }
  viewer.scrollTop = page.div.offsetTop - 8;
  setCurrent(page.number);
}

function setCurrent(number: number): void {
  current = number;
  pageInput.value = String(number);
}

/** The page whose area is most in view. */
function updateCurrent(): void {
  const middle = viewer.scrollTop + viewer.clientHeight / 3;
  const found = pages.find((page) => page.div.offsetTop + page.div.offsetHeight > middle);
  if (found && found.number !== current) {
    setCurrent(found.number);
    post('state', state());
  }
}

async function textOf(number: number): Promise<string[]> {
  let texts = pageTexts.get(number);
  if (!texts) {
    const content = await (await doc!.getPage(number)).getTextContent();
    texts = content.items.map((item) => ('str' in item ? item.str : ''));
    pageTexts.set(number, texts);
  }
  return texts;
}

/** Finds every text item containing `text` (case-insensitive), page by page, and shows the first. */
async function find(text: string): Promise<void> {
  query = text.trim().toLowerCase();
  matches = [];
  matchIndex = -1;
  if (query && doc) {
    for (let number = 1; number <= pages.length; number++) {
      (await textOf(number)).forEach((item, index) => item.toLowerCase().includes(query) && matches.push({ page: number, item: index }));
    }
  }
  pages.forEach(highlight);
  if (matches.length > 0) {
    await showMatch(0);
  }
  findCount.textContent = query ? (matches.length === 0 ? 'No results' : `${matchIndex + 1} of ${matches.length}`) : '';
  post('state', state());
}

async function showMatch(index: number): Promise<void> {
  if (matches.length === 0) {
    return;
  }
  matchIndex = (index + matches.length) % matches.length;
  const match = matches[matchIndex]!;
  const page = pages[match.page - 1]!;
  goTo(match.page);
  await draw(page);
  pages.forEach(highlight);
  const div = page.drawn?.textDivs[match.item];
  if (div) {
    viewer.scrollTop = page.div.offsetTop + div.offsetTop - viewer.clientHeight / 3;
  }
  findCount.textContent = `${matchIndex + 1} of ${matches.length}`;
}

function highlight(page: PageView): void {
  if (!page.drawn) {
    return;
  }
  page.drawn.textDivs.forEach((div) => div.classList.remove('highlight', 'selected'));
  matches.forEach((match, index) => {
    if (match.page === page.number) {
      page.drawn!.textDivs[match.item]?.classList.add('highlight', ...(index === matchIndex ? ['selected'] : []));
    }
  });
}

async function open(data: Uint8Array): Promise<void> {
  startedAt = performance.now();
  loading = pdfjs.getDocument({ data, isEvalSupported: false, useSystemFonts: true, enableXfa: false });
  loading.onPassword = (update: (password: string) => void, reason: number) => {
    passwordAnswer = (password) => {
      if (password === undefined) {
        showError('This PDF is protected by a password.');
        post('error', { message: 'This PDF is protected by a password, and none was given.', kind: 'password' });
        void loading?.destroy();
      } else {
        update(password);
      }
    };
    post('password', { incorrect: reason === pdfjs.PasswordResponses.INCORRECT_PASSWORD });
  };
  let first: { width: number; height: number };
  try {
    doc = await loading.promise;
    if (doc.numPages < 1) {
      throw new Error('it has no pages');
    }
    first = (await doc.getPage(1)).getViewport({ scale: 1 });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    showError(`This PDF is damaged or incomplete and cannot be shown (${text}).`);
    post('error', { message: text, kind: 'corrupt' });
    return;
  }
  pages = Array.from({ length: doc.numPages }, (_, index) => {
    const div = document.createElement('div');
    div.className = 'page';
    div.dataset.page = String(index + 1);
    div.setAttribute('role', 'img');
    div.setAttribute('aria-label', `Page ${index + 1} of ${doc!.numPages}`);
    viewer.append(div);
    return { number: index + 1, div, width: first.width, height: first.height };
  });
  pageCount.textContent = String(pages.length);
  pageInput.max = String(pages.length);
  scale = scaleFor(zoom);
  layout();
  setCurrent(1);
  // Page 1 first, alone; then the pages near the view as they come into it.
  await draw(pages[0]!);
  pages.forEach((page) => observer.observe(page.div));
}

window.addEventListener('message', (event: MessageEvent) => {
  const data = event.data as { type: string; [key: string]: unknown };
  switch (data.type) {
    case 'load':
      body.classList.toggle('report', data.canSave === true);
      void open(data.data as Uint8Array);
      break;
    case 'password':
      passwordAnswer?.(typeof data.password === 'string' ? data.password : undefined);
      break;
    case 'goto':
      goTo(Number(data.page));
      void draw(pages[current - 1]!).then(() => post('state', state()));
      break;
    case 'find':
      findInput.value = String(data.query ?? '');
      void find(findInput.value);
      break;
    case 'findNext':
      void showMatch(matchIndex + 1).then(() => post('state', state()));
      break;
    case 'zoom':
      setZoom(String(data.value));
      break;
    case 'getState':
      post('state', state());
      break;
  }
});

document.getElementById('prev')!.addEventListener('click', () => goTo(current - 1));
document.getElementById('next')!.addEventListener('click', () => goTo(current + 1));
document.getElementById('save')!.addEventListener('click', () => post('save'));
document.getElementById('metadata')!.addEventListener('click', () => post('metadata'));
pageInput.addEventListener('change', () => goTo(Number(pageInput.value)));
zoomSelect.addEventListener('change', () => setZoom(zoomSelect.value));
findInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    if (findInput.value.trim().toLowerCase() !== query) {
      void find(findInput.value);
    } else {
      void showMatch(matchIndex + (event.shiftKey ? -1 : 1));
    }
  } else if (event.key === 'Escape') {
    findInput.value = '';
    void find('');
    viewer.focus();
  }
});
viewer.addEventListener('scroll', () => requestAnimationFrame(updateCurrent), { passive: true });
window.addEventListener('resize', () => zoom.startsWith('page-') && setZoom(zoom));
window.addEventListener('keydown', (event) => {
  const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
  const command = event.ctrlKey || event.metaKey;
  if (command && event.key.toLowerCase() === 'f') {
    event.preventDefault();
    findInput.focus();
    findInput.select();
  } else if (command && (event.key === '=' || event.key === '+' || event.key === '-')) {
    event.preventDefault();
    const next = Math.round(scale * 100 * (event.key === '-' ? 1 / 1.25 : 1.25));
    setZoom(String(Math.min(400, Math.max(25, next))));
  } else if (!typing && (event.key === 'PageDown' || event.key === 'n' || event.key === 'j')) {
    event.preventDefault();
    goTo(current + 1);
  } else if (!typing && (event.key === 'PageUp' || event.key === 'p' || event.key === 'k')) {
    event.preventDefault();
    goTo(current - 1);
  } else if (!typing && event.key === 'Home') {
    event.preventDefault();
    goTo(1);
  } else if (!typing && event.key === 'End') {
    event.preventDefault();
    goTo(pages.length);
  }
});

void (async () => {
  try {
    pdfjs = (await import(body.dataset.pdfjs!)) as PdfJs;
    pdfjs.GlobalWorkerOptions.workerSrc = body.dataset.worker!;
    post('ready');
  } catch (error) {
    showError(`The PDF viewer could not start: ${error instanceof Error ? error.message : String(error)}`);
    post('error', { message: String(error), kind: 'viewer' });
  }
})();
