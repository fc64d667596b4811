import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import { Commands } from '../constants';
import type { Labs } from './labs';

/** What the toast says when a lab refused its stored token: the lab's own reason when it gave one. */
export function rejectedTokenMessage(labName: string, reason: string | undefined): string {
  const said = reason === undefined ? '' : serverText(reason, 120).trim();
  return said
    ? vscode.l10n.t(
        '{0} no longer accepts your access token (the lab says: {1}). Sign in again to continue.',
        labName,
        said,
      )
    : vscode.l10n.t(
        '{0} no longer accepts your access token (it expired or was revoked). Sign in again to continue.',
        labName,
      );
}

/** Tells the user what happened to a lab's sign-in behind their back; the connections themselves show nothing. */
export class LabNotifications implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;

  constructor(labs: Labs) {
    this.subscription = labs.onDidRejectToken(({ lab, reason }) => {
      const signIn = vscode.l10n.t('Sign In');
      void vscode.window
        .showWarningMessage(rejectedTokenMessage(lab.name, reason), signIn)
        .then((choice) => {
          if (choice === signIn) {
            // By `lab`: a lab still called after its address is named at this sign-in.
            void vscode.commands.executeCommand(Commands.signIn, {
              lab: lab.name,
              baseUrl: lab.url.baseUrl,
            });
          }
        });
    });
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
