import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { Labs } from './labs';

/** Tells the user what happened to a lab's sign-in behind their back; the connections themselves show nothing. */
export class LabNotifications implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;

  constructor(labs: Labs) {
    this.subscription = labs.onDidRejectToken((lab) => {
      const signIn = vscode.l10n.t('Sign In');
      void vscode.window
        .showWarningMessage(
          vscode.l10n.t(
            '{0} no longer accepts your access token (it expired or was revoked). Sign in again to continue.',
            lab.name,
          ),
          signIn,
        )
        .then((choice) => {
          if (choice === signIn) {
            void vscode.commands.executeCommand(Commands.signIn, {
              name: lab.name,
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
