import * as vscode from 'vscode';
import type { Report } from '../../core/api/records';
import { Commands } from '../constants';
import type { RecordRef } from '../ui/commandTargets';
import { LabNode, localTime, shownItem } from './nodes';
import { distinctParts, knownNames, localDate, recordTooltip, statusWord } from './recordText';
import { withoutSharedPrefix } from './sharedTitles';
import type { SavedReportState } from './savedState';

/**
 * A report's title as a row shows it: without a leading report type ("Certificate of Analysis:
 * North Well" reads "North Well"), which the row says after it; undefined when the lab sent none.
 */
export function reportTitle(report: Report): string | undefined {
  const title = typeof report.raw.title === 'string' ? report.raw.title.trim() : '';
  const type = report.report_type?.trim();
  const rest =
    type && title.toLowerCase().startsWith(type.toLowerCase())
      ? /^\s*[:\-–—|]\s*(\S.*)$/u.exec(title.slice(type.length))?.[1]
      : undefined;
  if (rest) {
    return rest;
  }
  return title || undefined;
}

/** A report's row: its id, then what tells it from its neighbours; a click previews its PDF. */
export class ReportNode extends LabNode {
  readonly id: string;
  override readonly ref: RecordRef;

  constructor(
    readonly report: Report,
    parentId: string,
    lab: string,
    /** Published since the user last looked (see NewReports). */
    readonly isNew = false,
    /** The start of the title every neighbour in its list shares (its project's name), not repeated on the row. */
    readonly sharedPrefix?: string,
    /** A file of it is saved (and verified, or changed since): undefined when none is. */
    readonly saved?: SavedReportState,
    /** Several labs are shown: its accessible label names its lab (the same id may be in two). */
    readonly namesLab = false,
  ) {
    super();
    this.id = `${parentId}/report:${report.report_id}`;
    this.ref = {
      lab,
      kind: 'report',
      id: report.report_id,
      record: report.raw,
      downloadable: report.download_available !== false,
    };
  }

  get downloadable(): boolean {
    return this.report.download_available !== false;
  }

  getTreeItem(): vscode.TreeItem {
    const { report } = this;
    const title = reportTitle(report);
    const day = localDate(report.published_at);
    const status =
      report.status && report.status.toLowerCase() !== 'published'
        ? statusWord(report.status)
        : undefined;
    // What tells one report from the next comes first and survives the default sidebar width: the
    // id as the label, then the day, the type and a status other than published, and last the
    // title (without a leading report type, and without the words all its neighbours' titles
    // start with, such as their project's name), which is what the width may cut; a part the
    // title already says is not repeated.
    const item = new vscode.TreeItem(report.report_id, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = distinctParts([
      this.isNew ? vscode.l10n.t('new') : undefined,
      day,
      report.report_type,
      status,
      withoutSharedPrefix(title, this.sharedPrefix),
    ]).join(' · ');
    const color = this.isNew ? new vscode.ThemeColor('charts.blue') : undefined;
    const saved = savedInWords(this.saved);
    item.iconPath = this.saved
      ? savedIcon(this.saved, color)
      : this.downloadable
        ? new vscode.ThemeIcon('file-pdf', color)
        : new vscode.ThemeIcon('file', color ?? new vscode.ThemeColor('disabledForeground'));
    const heading = this.downloadable
      ? vscode.l10n.t('Report {0}', report.report_id)
      : vscode.l10n.t('Report {0} (no file available)', report.report_id);
    item.tooltip = recordTooltip(
      saved ? vscode.l10n.t('{0}: {1}', heading, saved) : heading,
      report.raw,
      knownNames.of(this.ref.lab),
    );
    item.contextValue = this.downloadable ? 'labData.report.downloadable' : 'labData.report';
    // A click, Enter or a double-click previews the PDF, like Explorer's preview mode; metadata and save stay row actions.
    item.command = this.downloadable
      ? { command: Commands.previewReport, title: vscode.l10n.t('Preview'), arguments: [this] }
      : {
          command: Commands.openReportMetadata,
          title: vscode.l10n.t('Open Metadata'),
          arguments: [this],
        };
    // The states its icon and colour show come first: a long title cannot push them out.
    const spoken = [
      this.isNew ? vscode.l10n.t('new') : undefined,
      saved,
      title,
      report.report_type,
      localTime(report.published_at),
      status,
    ]
      .filter(Boolean)
      .join(', ');
    item.accessibilityInformation = { label: this.spokenLabel(spoken) };
    return shownItem(item);
  }

  /** What a screen reader says of the row: its id, its lab when several are shown, then `spoken`. */
  private spokenLabel(spoken: string): string {
    const id = this.report.report_id;
    const lab = this.ref.lab;
    if (this.namesLab) {
      return this.downloadable
        ? vscode.l10n.t('Report {0} in {1}, {2}', id, lab, spoken)
        : vscode.l10n.t('Report {0} in {1}, {2}, no file available', id, lab, spoken);
    }
    return this.downloadable
      ? vscode.l10n.t('Report {0}, {1}', id, spoken)
      : vscode.l10n.t('Report {0}, {1}, no file available', id, spoken);
  }
}

/** A saved report's state in words: "saved", "saved, verified", "saved, changed since it was saved". */
function savedInWords(state: SavedReportState | undefined): string | undefined {
  if (!state) {
    return undefined;
  }
  return state.changed
    ? vscode.l10n.t('saved, changed since it was saved')
    : state.verified
      ? vscode.l10n.t('saved, verified')
      : vscode.l10n.t('saved');
}

/** A saved report's icon: changed in Explorer's colour for a modified file, verified as a passed check. */
function savedIcon(
  state: SavedReportState,
  color: vscode.ThemeColor | undefined,
): vscode.ThemeIcon {
  return state.changed
    ? new vscode.ThemeIcon(
        'diff-modified',
        new vscode.ThemeColor('gitDecoration.modifiedResourceForeground'),
      )
    : state.verified
      ? new vscode.ThemeIcon('verified-filled', new vscode.ThemeColor('testing.iconPassed'))
      : new vscode.ThemeIcon('pass', color);
}
