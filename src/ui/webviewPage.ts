import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * What every Lab Data webview page is built from: a fresh nonce for its scripts, URIs of the
 * extension's own files, and one document head (Content-Security-Policy, language, the shared
 * `media/webview.css` and the page's own stylesheet).
 */
export class WebviewPage {
  readonly nonce = randomBytes(18).toString('base64url');

  constructor(
    private readonly webview: vscode.Webview,
    private readonly extensionUri: vscode.Uri,
  ) {}

  /** The `webview.cspSource` to allow in a policy. */
  get cspSource(): string {
    return this.webview.cspSource;
  }

  /** A file of the extension as the webview may load it. */
  resource(...parts: string[]): string {
    return this.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...parts)).toString();
  }

  /**
   * The whole page: `csp` as its policy, `media/webview.css` and then the page's `media/<stylesheet>`,
   * then `body` (attributes and content). `title` names the page to assistive technology (as the
   * panel's tab names it to everyone).
   */
  document(
    csp: string,
    stylesheet: string,
    bodyAttributes: string,
    body: string,
    title: string,
  ): string {
    return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${this.resource('media', 'webview.css')}">
<link rel="stylesheet" href="${this.resource('media', stylesheet)}">
</head>
<body${bodyAttributes ? ` ${bodyAttributes}` : ''}>
${body}
</body>
</html>`;
  }
}
