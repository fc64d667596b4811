/**
 * The notebook renderer of a report card (`application/vnd.labdata.report+json`, which the Python
 * reader's `labdata.Report` emits): the report's id and title as a heading, its lab, status,
 * revision, amended and verified as a list, and "Preview", which asks the extension to preview the
 * report. Everything the output holds is data: it is set as text, never as markup. Colours come
 * from the theme's CSS variables. The labels are English until the extension sends them in the
 * display language (it may not run at all: messaging is optional).
 */

import { element } from './element';

/** The few shapes of VS Code's renderer API used here (the `vscode-notebook-renderer` types, by hand). */
interface OutputItem {
  readonly id: string;
  readonly mime: string;
  json(): unknown;
}

interface RendererContext {
  /** Present when the extension can be reached (`requiresMessaging: "optional"`). */
  postMessage?(message: unknown): void;
  onDidReceiveMessage?(listener: (message: unknown) => void): { dispose(): void };
}

/** What the card shows of an output, each value as text. */
interface Card {
  readonly id: string;
  readonly title?: string;
  readonly lab?: string;
  readonly origin?: string;
  readonly status?: string;
  readonly revision?: string;
  readonly amended?: boolean;
  readonly verified?: boolean;
}

const ENGLISH = {
  lab: 'Lab',
  status: 'Status',
  revision: 'Revision',
  amended: 'Amended',
  verified: 'Verified',
  yes: 'yes',
  no: 'no',
  notRecorded: 'not recorded',
  preview: 'Preview',
  previewLabel: 'Preview {0}',
  notACard: 'This output is not a Lab Data report card.',
};
type Text = typeof ENGLISH;

const STYLE = `
.labdata-card { font-family: var(--vscode-font-family); color: var(--vscode-foreground);
  border: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent));
  border-radius: 4px; padding: 8px 12px; max-width: 40em; }
.labdata-card h3 { margin: 0 0 6px; font-size: 1.1em; }
.labdata-card .labdata-title { font-weight: normal; }
.labdata-card ul { list-style: none; margin: 0 0 8px; padding: 0; }
.labdata-card li { margin: 2px 0; }
.labdata-card .labdata-label { color: var(--vscode-descriptionForeground); }
.labdata-card button { font-family: inherit; color: var(--vscode-button-foreground);
  background: var(--vscode-button-background); border: 1px solid var(--vscode-button-border, transparent);
  border-radius: 2px; padding: 4px 12px; cursor: pointer; }
.labdata-card button:hover { background: var(--vscode-button-hoverBackground); }
.labdata-card button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
`;

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : undefined;

/** The card an output holds, or undefined when it is not one (no id). */
function cardOf(value: unknown): Card | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  const data = value as Record<string, unknown>;
  const id = textOf(data.id);
  if (id === undefined) {
    return undefined;
  }
  const flag = (key: string) => (typeof data[key] === 'boolean' ? data[key] : undefined);
  return {
    id,
    title: textOf(data.title),
    lab: textOf(data.lab),
    origin: textOf(data.origin),
    status: textOf(data.status),
    revision: textOf(data.revision),
    amended: flag('amended'),
    verified: flag('verified'),
  };
}

/** The card as elements: a heading, a list of fields, and Preview when the extension can be asked. */
function draw(card: Card, text: Text, preview: ((card: Card) => void) | undefined): HTMLElement {
  const yesNo = (flag: boolean | undefined) =>
    flag === undefined ? text.notRecorded : flag ? text.yes : text.no;
  const field = (label: string, value: string | undefined, key: string) =>
    element(
      'li',
      { className: `labdata-${key}` },
      element('span', { className: 'labdata-label', textContent: `${label}: ` }),
      element('span', { className: 'labdata-value', textContent: value ?? text.notRecorded }),
    );
  const heading = element(
    'h3',
    {},
    element('span', { className: 'labdata-id', textContent: card.id }),
  );
  if (card.title) {
    heading.append(' ', element('span', { className: 'labdata-title', textContent: card.title }));
  }
  const section = element(
    'section',
    { className: 'labdata-card' },
    element('style', { textContent: STYLE }),
    heading,
    element(
      'ul',
      {},
      field(text.lab, card.lab ?? card.origin, 'lab'),
      field(text.status, card.status, 'status'),
      field(text.revision, card.revision, 'revision'),
      field(text.amended, yesNo(card.amended), 'amended'),
      field(text.verified, yesNo(card.verified), 'verified'),
    ),
  );
  section.setAttribute('aria-label', card.title ? `${card.id} ${card.title}` : card.id);
  if (preview) {
    const button = element('button', { type: 'button', textContent: text.preview });
    button.setAttribute('aria-label', text.previewLabel.replace('{0}', card.id));
    button.addEventListener('click', () => preview(card));
    section.append(button);
  }
  return section;
}

/** The strings the extension sends in the display language; anything else keeps English. */
function textFrom(message: unknown): Text | undefined {
  const sent = (message as { type?: unknown; text?: unknown } | null)?.text;
  if (
    (message as { type?: unknown } | null)?.type !== 'text' ||
    typeof sent !== 'object' ||
    !sent
  ) {
    return undefined;
  }
  const merged: Record<string, string> = { ...ENGLISH };
  for (const key of Object.keys(ENGLISH)) {
    const value = (sent as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') {
      merged[key] = value;
    }
  }
  return merged as Text;
}

export const activate = (context: RendererContext) => {
  let text: Text = ENGLISH;
  /** Each output drawn, by its item id: drawn again when the labels arrive. */
  const shown = new Map<string, { element: HTMLElement; card?: Card }>();
  const preview = context.postMessage
    ? (card: Card) =>
        context.postMessage?.({ type: 'preview', id: card.id, lab: card.lab, origin: card.origin })
    : undefined;
  const render = (element: HTMLElement, card: Card | undefined) => {
    element.replaceChildren(
      card
        ? draw(card, text, preview)
        : Object.assign(document.createElement('p'), { textContent: text.notACard }),
    );
  };
  context.onDidReceiveMessage?.((message) => {
    const labels = textFrom(message);
    if (labels) {
      text = labels;
      shown.forEach(({ element, card }) => render(element, card));
    }
  });
  context.postMessage?.({ type: 'ready' });
  return {
    renderOutputItem(item: OutputItem, element: HTMLElement): void {
      let card: Card | undefined;
      try {
        card = cardOf(item.json());
      } catch {
        card = undefined;
      }
      shown.set(item.id, { element, card });
      render(element, card);
    },
    disposeOutputItem(id?: string): void {
      if (id === undefined) {
        shown.clear();
      } else {
        shown.delete(id);
      }
    },
  };
};
