import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';

/** `labData.signOut`: forgets the token of the configured lab. */
export async function signOut(session: LabSession): Promise<boolean> {
  const host = session.current.lab?.host;
  const removed = await session.signOut();
  if (removed) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Signed out of {0}.', host ?? ''));
  }
  return removed;
}
