import * as vscode from 'vscode';
import { nameWithAddress } from '../../core/api/labDefinition';
import { buildSupportReport } from '../../core/derived/supportReport';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';

/**
 * `labData.copySupportReport`: copies a report of the last failed request, of any lab, in the shape
 * the provider's support asks for (spec section 7). Returns the text; never contains a token.
 */
export async function copySupportReport(
  labs: Labs,
  log: Logger,
  integration: string,
): Promise<string | undefined> {
  const failure = labs.lastFailure;
  if (!failure) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('No request to the lab has failed yet, so there is nothing to report.'),
    );
    return undefined;
  }
  const tenant = nameWithAddress(failure.lab);
  const text = log.redact(
    buildSupportReport(failure.error, {
      tenant,
      integration,
      at: failure.at,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    }),
  );
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Support report copied. Paste it into your ticket; it contains no token or downloaded data.',
    ),
  );
  return text;
}
