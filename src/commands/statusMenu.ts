import * as vscode from 'vscode';
import { Commands, Views } from '../constants';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { NewReports } from '../news/newReports';

interface MenuItem extends vscode.QuickPickItem {
  /** What the menu resolves with (for tests and automation). */
  readonly id: string;
  readonly run: () => Thenable<unknown> | void;
}

/**
 * `labData.statusMenu`: what the status bar item opens: Sign In or Sign Out, Refresh, Sync, the
 * new reports, Check Connection, Show Log. Each entry runs the command a person would find in the palette.
 */
export async function statusMenu(
  labs: Labs,
  log: Logger,
  news: NewReports,
): Promise<string | undefined> {
  const run =
    (command: string, ...args: unknown[]) =>
    () =>
      vscode.commands.executeCommand(command, ...args);
  const signedIn = labs.signedIn;
  const signedOut = labs.all.filter((connection) => !connection.signedIn);
  const hasFolder = (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  const items: MenuItem[] = [
    ...(signedOut.length > 0 || labs.all.length === 0
      ? [
          {
            id: 'signIn',
            label: `$(sign-in) ${vscode.l10n.t('Sign In…')}`,
            description: signedOut.length === 1 ? signedOut[0]!.lab.name : undefined,
            run:
              signedOut.length === 1
                ? run(Commands.signIn, {
                    lab: signedOut[0]!.lab.name,
                    baseUrl: signedOut[0]!.lab.url.baseUrl,
                  })
                : run(Commands.signIn),
          },
        ]
      : []),
    ...(signedIn.length > 0
      ? [
          {
            id: 'refresh',
            label: `$(refresh) ${vscode.l10n.t('Refresh')}`,
            run: run(Commands.refresh),
          },
          ...(hasFolder
            ? [
                {
                  id: 'sync',
                  label: `$(sync) ${vscode.l10n.t('Sync Reports to Folder…')}`,
                  run: run(Commands.syncReports),
                },
              ]
            : []),
          ...(news.total > 0
            ? [
                {
                  id: 'news',
                  label: `$(bell-dot) ${vscode.l10n.t('Show {0} New Reports', news.total)}`,
                  run: run(`${Views.reports}.focus`),
                },
              ]
            : []),
        ]
      : []),
    { id: 'addLab', label: `$(add) ${vscode.l10n.t('Add Lab…')}`, run: run(Commands.addLab) },
    {
      id: 'view',
      label: `$(beaker) ${vscode.l10n.t('Show Lab Data')}`,
      run: run(`workbench.view.extension.${Views.container}`),
    },
    ...(labs.all.length > 0
      ? [
          {
            id: 'checkConnection',
            label: `$(pulse) ${vscode.l10n.t('Check Connection')}`,
            run: run(Commands.checkConnection),
          },
        ]
      : []),
    { id: 'log', label: `$(output) ${vscode.l10n.t('Show Log')}`, run: () => log.show() },
    ...(signedIn.length > 0
      ? [
          {
            id: 'signOut',
            label: `$(sign-out) ${vscode.l10n.t('Sign Out…')}`,
            description: signedIn.length === 1 ? signedIn[0]!.lab.name : undefined,
            run: run(Commands.signOut),
          },
        ]
      : []),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Lab Data',
    placeHolder: vscode.l10n.t('What would you like to do?'),
  });
  if (!picked) {
    return undefined;
  }
  await picked.run();
  return picked.id;
}
