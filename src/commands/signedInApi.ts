import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import type { LabApi } from '../core/labApi';
import { Commands } from '../constants';
import { resolveDownloadTarget, type DownloadTarget } from '../downloads/targetFolder';
import type { PromptsHolder } from '../ui/prompts';

/** The lab API when signed in; otherwise starts "Sign In" and gives undefined. */
export async function signedInApi(session: LabSession): Promise<LabApi | undefined> {
  const api = await session.api();
  if (!api) {
    await vscode.commands.executeCommand(Commands.signIn);
  }
  return api;
}

/** The lab API and the folder to save into, or undefined when not signed in or no folder was chosen. */
export async function signedInDownload(session: LabSession, prompts: PromptsHolder): Promise<{ api: LabApi; target: DownloadTarget } | undefined> {
  const api = await signedInApi(session);
  const target = api && (await resolveDownloadTarget(prompts.current));
  return api && target ? { api, target } : undefined;
}
