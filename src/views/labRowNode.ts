import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { LabConnection } from '../labs/labConnection';
import type { LabEntryState } from '../labs/labs';
import { LabNode, MessageNode } from './nodes';

/**
 * The longest lab name a lab row shows whole. A longer one is cut (at a word where it can) so the
 * lab's state and count after it stay in sight at the default sidebar width; the tooltip and the
 * accessible label keep the whole name.
 */
export const SHOWN_LAB_NAME_LENGTH = 18;

/**
 * A lab's name as its row shows it: whole when short, else its first words and "…". A number or
 * word in brackets at its end ("Meridian Analytical Laboratories (2)", the name Add Lab proposes
 * beside a taken one) is kept, so two labs that share a long name stay told apart.
 */
export function shownLabName(name: string): string {
  if ([...name].length <= SHOWN_LAB_NAME_LENGTH) {
    return name;
  }
  const suffix = /\s\([^()]{1,8}\)$/u.exec(name)?.[0] ?? '';
  const chars = [...name.slice(0, name.length - suffix.length)];
  const room = SHOWN_LAB_NAME_LENGTH - [...suffix].length;
  const head = chars.slice(0, room - 1).join('');
  const atWord = head.replace(/\s+\S*$/u, '');
  // At a word when that keeps most of it ("Harbor Water…"), else mid-word ("Meridian Analytic…").
  return `${(atWord.length >= (room * 2) / 3 ? atWord : head).trimEnd()}…${suffix}`;
}

/** A lab row's state in a word or two, when it is anything but signed in and answering. */
function stateWord(connection: LabConnection): string | undefined {
  const state = connection.connection;
  if (!connection.signedIn) {
    return vscode.l10n.t('signed out');
  }
  if (state.kind === 'offline') {
    return vscode.l10n.t('unreachable');
  }
  return state.kind === 'rateLimited' && state.until > Date.now()
    ? vscode.l10n.t('rate-limited')
    : undefined;
}

/** The context value of a lab row, which its menus match on. */
function contextOf(connection: LabConnection): string {
  if (!connection.signedIn) {
    return 'labData.lab.signedOut';
  }
  // Still signed in (its menus stay); Check Connection is offered beside them.
  return connection.connection.kind === 'offline'
    ? 'labData.lab.signedIn.unreachable'
    : 'labData.lab.signedIn';
}

/**
 * With several labs, the top row of a lab in each view: its name, host and state (signed in,
 * signed out with a "Sign In" row, misconfigured with what is wrong, unreachable).
 */
export class LabRowNode extends LabNode {
  readonly id: string;
  readonly labName: string;

  constructor(
    readonly entry: LabEntryState,
    private readonly children: (connection: LabConnection) => Promise<LabNode[]>,
    /** "120 reports", once known. */
    private readonly count: (connection: LabConnection) => string | undefined = () => undefined,
  ) {
    super();
    this.labName = entry.kind === 'lab' ? entry.connection.lab.name : entry.lab.name;
    this.id = `lab:${this.labName}`;
  }

  getTreeItem(): vscode.TreeItem {
    // Collapsed at first: every lab stays in sight, each with its count and state, however long one lab's list is.
    const item = new vscode.TreeItem(
      shownLabName(this.labName),
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = this.id;
    const { entry } = this;
    if (entry.kind === 'invalid') {
      item.description = vscode.l10n.t('misconfigured');
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
      item.tooltip = vscode.l10n.t('{0}: {1}', this.labName, entry.lab.error.message);
      item.contextValue = 'labData.lab.invalid';
      item.accessibilityInformation = {
        label: vscode.l10n.t('Lab {0}, misconfigured: {1}', this.labName, entry.lab.error.message),
      };
      return item;
    }
    const { connection } = entry;
    const state = connection.connection;
    const offline = connection.signedIn && state.kind === 'offline';
    const status = stateWord(connection);
    // A lab named after its host (the labData.baseUrl shorthand) would repeat it.
    const host =
      connection.lab.url.host === connection.lab.name ? undefined : connection.lab.url.host;
    const count = connection.signedIn ? this.count(connection) : undefined;
    // State and count first, the host last: at the default width the host is what may be cut off.
    item.description = [status, count, host].filter(Boolean).join(' · ');
    item.iconPath = !connection.signedIn
      ? new vscode.ThemeIcon('account', new vscode.ThemeColor('disabledForeground'))
      : offline
        ? new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('errorForeground'))
        : new vscode.ThemeIcon('beaker');
    // The reason is a whole sentence naming the lab's address ("Cannot reach the lab at … (…)."): said once.
    item.tooltip =
      offline && state.kind === 'offline'
        ? `${connection.lab.name}: ${state.reason}`
        : `${connection.lab.name}: ${connection.lab.url.baseUrl}`;
    item.contextValue = contextOf(connection);
    item.accessibilityInformation = {
      label: [
        vscode.l10n.t('Lab {0}', this.labName),
        status ?? vscode.l10n.t('signed in'),
        count,
        host,
      ]
        .filter(Boolean)
        .join(', '),
    };
    return item;
  }

  override async getChildren(): Promise<LabNode[]> {
    const { entry } = this;
    if (entry.kind === 'invalid') {
      return [
        new MessageNode(
          `${this.id}/invalid`,
          entry.lab.error.message,
          'error',
          undefined,
          entry.lab.error.message,
        ),
      ];
    }
    if (!entry.connection.signedIn) {
      const { lab } = entry.connection;
      return [
        new MessageNode(
          `${this.id}/signIn`,
          vscode.l10n.t('Sign in to {0}…', lab.name),
          'sign-in',
          {
            command: Commands.signIn,
            title: vscode.l10n.t('Sign In'),
            // By `lab`, not `name`: a lab called after its address is named at this sign-in.
            arguments: [{ lab: lab.name, baseUrl: lab.url.baseUrl }],
          },
        ),
      ];
    }
    return this.children(entry.connection);
  }
}

/**
 * The row above an unreachable lab's rows: what is listed was loaded before and may be out of
 * date. A click tries again; its Check Connection action (inline and in its menu) says why.
 */
export class UnreachableNode extends LabNode {
  constructor(
    readonly id: string,
    /** The lab it marks (Check Connection reads it as the row's lab). */
    readonly labName: string,
    /** Why, as a whole sentence naming the lab's address. */
    private readonly reason: string,
  ) {
    super();
  }

  getTreeItem(): vscode.TreeItem {
    const text = vscode.l10n.t('Unreachable: the rows below may be out of date');
    // The reason is usually a sentence already: one full stop, never two.
    const reason = /[.!?…]$/u.test(this.reason) ? this.reason : `${this.reason}.`;
    const item = new vscode.TreeItem(text, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('debug-disconnect');
    item.command = { command: Commands.refresh, title: vscode.l10n.t('Refresh') };
    item.tooltip = vscode.l10n.t('{0} Click to try again.', reason);
    item.contextValue = 'labData.unreachable';
    // The label says "Unreachable" already: read as it is, with the reason after it.
    item.accessibilityInformation = { label: vscode.l10n.t('{0}. {1}', text, reason) };
    return item;
  }
}
