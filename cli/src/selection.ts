import type { Report } from '../../core/api/records';
import {
  LIST_FIELDS,
  PROFILE_VARIABLE,
  PROFILES_FILE,
  profileSourceSaid,
  selectionOfFolder,
  selectsReport,
  SelectionError,
  type SelectionCriteria,
} from '../../core/derived/selection';
import { serverText } from '../../core/errors/serverText';
import { formatBytes } from '../../core/files/sizes';
import type { SyncManifest } from '../../core/sync/manifestModel';
import type { CliContext } from './context';
import { CliError, Exit } from './exitCodes';

/** The reports a command works on, and the words that say what was left out. */
export interface Selected {
  /** The manifest restricted to the selection (the whole manifest without one). */
  readonly manifest: SyncManifest;
  readonly notSelected: number;
  /** For `status --remote`: which of a lab's reports the folder lacks are of the selection. */
  readonly countsAsNew?: (lab: string, report: Report) => boolean;
  /** For summary lines: `; 30 not selected`, or nothing. */
  readonly words: string;
  /** For `--json`; undefined without a selection. */
  readonly json?: {
    readonly said: string;
    readonly profile?: string;
    readonly selected: number;
    readonly not_selected: number;
    readonly bytes: number;
  };
}

/** The selection flags as given, in the order of `--help`. */
function flagsOf(context: CliContext): { flags: SelectionCriteria; said: string } {
  const flags: Record<string, unknown> = {};
  const said: string[] = [];
  for (const field of LIST_FIELDS) {
    const values = context.texts(field);
    if (values.length > 0) {
      flags[field] = values;
      said.push(...values.map((value) => `--${field} ${value}`));
    }
  }
  for (const field of ['since', 'until'] as const) {
    const value = context.text(field);
    if (value !== undefined) {
      flags[field] = value;
      said.push(`--${field} ${value}`);
    }
  }
  return { flags: flags as SelectionCriteria, said: said.join(' ') };
}

/**
 * The selection of pull, status and verify (core: selectionOfFolder): `--profile`, else
 * LAB_DATA_PROFILE, else the clone's `.lab-data/profile`, else the default of the folder's
 * `lab-data-profiles.json`, none with `--all`; narrowed by the flags. One line on stderr says what
 * it selects. A bad profile or a selection of none is a usage error.
 */
export async function selectionOf(
  context: CliContext,
  folder: string,
  manifest: SyncManifest,
): Promise<Selected> {
  const { flags, said } = flagsOf(context);
  try {
    const chosen = await selectionOfFolder(folder, manifest, {
      profile: context.text('profile'),
      environment: context.env[PROFILE_VARIABLE],
      all: context.flag('all'),
      flags,
      flagsSaid: said,
    });
    const { selection, profile } = chosen;
    if (!selection) {
      return { manifest, notSelected: 0, words: '' };
    }
    const notSelected = chosen.total - chosen.selected;
    const size = `${chosen.selected} of ${chosen.total} reports (${formatBytes(chosen.bytes)})`;
    // Names and values from a committed file or the manifest: made safe to print.
    context.progress.line(
      serverText(
        profile
          ? `Profile "${profile.name}"${said ? ` with ${said}` : ''} selects ${size} (${PROFILES_FILE}${profile.source === 'default' ? '' : `; ${profileSourceSaid(profile.source)}`}); --all for every report.`
          : `Selected ${size} by ${said}.`,
        1000,
      ),
    );
    return {
      manifest: chosen.manifest,
      notSelected,
      countsAsNew: (lab, report) =>
        !(report.report_id in (manifest.labs[lab]?.files ?? {})) &&
        selectsReport(selection, lab, manifest.labs[lab]?.origin ?? '', report),
      words: notSelected > 0 ? `; ${notSelected} not selected` : '',
      json: {
        said: chosen.said ?? said,
        ...(profile ? { profile: profile.name } : {}),
        selected: chosen.selected,
        not_selected: notSelected,
        bytes: chosen.bytes,
      },
    };
  } catch (error) {
    if (error instanceof SelectionError) {
      throw new CliError(error.message, Exit.usage);
    }
    throw error;
  }
}
