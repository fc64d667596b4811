import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import type { LabApi } from '../core/labApi';
import { Commands } from '../constants';

/** The lab API when signed in; otherwise starts "Sign In" and gives undefined. */
export async function signedInApi(session: LabSession): Promise<LabApi | undefined> {
  const api = await session.api();
  if (!api) {
    await vscode.commands.executeCommand(Commands.signIn);
  }
  return api;
}
