import type { JsonObject } from '../../core/api/records';
import type { SavedSearch } from '../../core/derived/savedSearches';

export type RecordKind = 'report' | 'client' | 'project' | 'sample';

/** The scheme of the read-only metadata documents (`labdata://<host>/<kind>s/<id>.json?lab=…&id=…`; documents/). */
export const METADATA_SCHEME = 'labdata';

/** What a tree row or a command argument stands for: a record of one lab. */
export interface RecordRef {
  readonly lab: string;
  readonly kind: RecordKind;
  readonly id: string;
  /** The record as listed, for kinds the API cannot fetch one by one (projects, samples). */
  readonly record?: JsonObject;
  /** Whether the lab said a file can be downloaded (reports). */
  readonly downloadable?: boolean;
}

/** Anything that carries a reference (every record row of every tree). */
export interface RefCarrier {
  readonly ref: RecordRef;
}

/** A row that stands for a whole lab (with several labs, the top rows of each view). */
export interface LabCarrier {
  readonly labName: string;
  /** A saved search's folder carries its search. */
  readonly savedSearch?: SavedSearch;
}

export function isRefCarrier(value: unknown): value is RefCarrier {
  const ref = (value as Partial<RefCarrier> | undefined)?.ref;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof ref === 'object' &&
    ref !== null &&
    typeof ref.lab === 'string' &&
    typeof ref.kind === 'string' &&
    typeof ref.id === 'string'
  );
}

/**
 * Marks every row of a Lab Data tree (views/nodes.ts), so a row that stands for no record and no lab
 * ("Load more…", a message) is still known as the UI's argument, never read as automation's options.
 */
export const TREE_ROW: unique symbol = Symbol('Lab Data tree row');

function isTreeRow(value: unknown): boolean {
  return typeof value === 'object' && value !== null && TREE_ROW in value;
}

function isLabCarrier(value: unknown): value is LabCarrier {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<LabCarrier>).labName === 'string' &&
    !isRefCarrier(value)
  );
}

/** What a command was asked to act on, whoever called it. */
export interface CommandTargets {
  /** The lab named by the arguments (`{ lab }`, a tree item's lab, a lab row), if any. */
  readonly lab?: string;
  /** Records given as tree items. */
  readonly refs: RecordRef[];
  /** The saved search whose folder was clicked (its lab is `lab`). */
  readonly search?: SavedSearch;
  /** Report ids given as strings or `{ id }` / `{ ids }`. */
  readonly ids: string[];
  /** The arguments object from automation, without `lab`, `id` and `ids` (empty from the UI). */
  readonly options: Readonly<Record<string, unknown>>;
  /** Several records were asked for (a selection, an array), so the result is an array too. */
  readonly several: boolean;
  /**
   * True when the arguments came from the UI (a tree item, a selection or a lab row), which VS
   * Code passes even to title-bar buttons: they never mean "use these options and ask nothing".
   */
  readonly fromUi: boolean;
  /**
   * True when a row was clicked for its context menu: VS Code passed (clicked row, selected rows).
   * A title-bar button's row is only the one selected, never what the person asked about.
   */
  readonly clicked: boolean;
  /**
   * True when automation gave an options object (`{ lab?, id?, … }`) and no UI argument came with
   * it: "do this, ask nothing". False for UI arguments (a title-bar button passes the focused and
   * selected rows) and for no arguments at all, which both mean "ask what is missing".
   */
  readonly automated: boolean;
}

/** The report a metadata document shows, from its address (`labdata://<host>/reports/<id>.json?lab=…&id=…`). */
function reportOfMetadataDocument(value: unknown): RecordRef | undefined {
  const uri = value as { scheme?: unknown; path?: unknown; query?: unknown } | null;
  if (
    typeof uri !== 'object' ||
    uri === null ||
    uri.scheme !== METADATA_SCHEME ||
    typeof uri.path !== 'string' ||
    !uri.path.startsWith('/reports/') ||
    typeof uri.query !== 'string'
  ) {
    return undefined;
  }
  const query = new URLSearchParams(uri.query);
  const lab = query.get('lab');
  const id = query.get('id');
  return lab && id ? { lab, kind: 'report', id } : undefined;
}

/**
 * The one place command arguments become targets. VS Code passes (clicked item, selected items) to
 * a context-menu command and the selected row to a title-bar command (1.139: the focused row, any
 * row, or null); automation passes an id, ids or an options object such as `{ lab, id }`. Every
 * command reads its arguments through here.
 */
export function commandTargets(args: readonly unknown[]): CommandTargets {
  const refs: RecordRef[] = [];
  const ids: string[] = [];
  let options: Record<string, unknown> = {};
  let lab: string | undefined;
  let several = false;
  let fromUi = false;
  let search: SavedSearch | undefined;
  let optionsGiven = false;
  const add = (value: unknown): void => {
    const shown = reportOfMetadataDocument(value);
    if (shown) {
      // A title-bar button of a report's metadata document: that report.
      fromUi = true;
      lab ??= shown.lab;
      refs.push(shown);
    } else if (isRefCarrier(value)) {
      fromUi = true;
      lab ??= value.ref.lab;
      if (
        !refs.some(
          (ref) =>
            ref.lab === value.ref.lab && ref.kind === value.ref.kind && ref.id === value.ref.id,
        )
      ) {
        refs.push(value.ref);
      }
    } else if (isLabCarrier(value)) {
      fromUi = true;
      lab ??= value.labName;
      search ??=
        typeof value.savedSearch === 'object' && value.savedSearch !== null
          ? value.savedSearch
          : undefined;
    } else if (isTreeRow(value)) {
      // The focused row of a view, which VS Code 1.139 passes to the view's title-bar buttons: "Load
      // more…" or a message row names nothing to act on, and its fields are no options.
      fromUi = true;
    } else if (typeof value === 'string' && value.trim()) {
      ids.push(value.trim());
    } else if (Array.isArray(value)) {
      several = true;
      value.forEach(add);
    } else if (typeof value === 'object' && value !== null) {
      const { lab: labName, id, ids: many, ...rest } = value as Record<string, unknown>;
      if (typeof labName === 'string' && labName.trim()) {
        lab = labName.trim();
      }
      if (typeof id === 'string' && id.trim()) {
        ids.push(id.trim());
      }
      if (Array.isArray(many)) {
        several = true;
        many
          .filter((item): item is string => typeof item === 'string' && item.trim() !== '')
          .forEach((item) => ids.push(item.trim()));
      }
      options = { ...options, ...rest };
      optionsGiven = true;
    }
  };
  // A context-menu click passes (clicked item, selected items); the selection wins when it has the item.
  const [first, second, ...rest] = args;
  if (isRefCarrier(first) && Array.isArray(second) && second.includes(first)) {
    add(second);
  } else {
    add(first);
    add(second);
  }
  rest.forEach(add);
  const unique = [...new Set(ids)];
  return {
    lab,
    refs,
    ...(search ? { search } : {}),
    ids: unique,
    options,
    several: several || refs.length + unique.length > 1,
    fromUi,
    clicked: Array.isArray(second) && (isRefCarrier(first) || isLabCarrier(first)),
    automated: optionsGiven && !fromUi,
  };
}
