import * as vscode from 'vscode';
import type { LabApiError } from '../core/errors/errors';
import { loadCertificateAuthorities, proxyProblem, proxySecrets, resolveProxySettings, type NetworkOptions } from '../core/connection/network';
import { HTTP_SETTINGS_SECTION, SETTINGS_SECTION, Settings } from '../constants';
import type { Logger } from '../log';

/**
 * Turns VS Code's `http.proxy`, `http.noProxy`, `http.proxyAuthorization` and `http.proxyStrictSSL`,
 * the proxy environment variables and `labData.caCertificates` (user settings only) into the
 * core's {@link NetworkOptions}, and says when they change.
 */
export class NetworkSettings implements vscode.Disposable {
  private current: { options: NetworkOptions; problems: LabApiError[]; caFiles: string[] };
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  private warnedStrictSsl = false;

  constructor(
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.current = this.read();
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(HTTP_SETTINGS_SECTION) || event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.caCertificates}`)) {
        this.reload();
      }
    });
  }

  get options(): NetworkOptions {
    return this.current.options;
  }

  /** The files named in `labData.caCertificates` (user settings), as written. */
  get caFiles(): readonly string[] {
    return this.current.caFiles;
  }

  /** Why the network settings cannot be used as they are (an unreadable CA file, a malformed proxy). */
  get problems(): readonly LabApiError[] {
    return this.current.problems;
  }

  /** Reads the settings and the environment again (the environment cannot announce its changes). */
  reload(): void {
    this.current = this.read();
    this.changed.fire();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private read(): { options: NetworkOptions; problems: LabApiError[]; caFiles: string[] } {
    const http = vscode.workspace.getConfiguration(HTTP_SETTINGS_SECTION);
    const proxySettings = resolveProxySettings({
      proxy: http.get<string>('proxy'),
      proxySource: 'http.proxy',
      noProxy: http.get<string[]>('noProxy') ?? [],
      proxyAuthorization: http.get<string | null>('proxyAuthorization') ?? undefined,
      env: this.env,
    });
    if (proxySettings.proxyAuthorization) {
      this.log.addSecret(proxySettings.proxyAuthorization);
    }
    const problems: LabApiError[] = [];
    for (const proxy of new Set([proxySettings.httpsProxy, proxySettings.httpProxy])) {
      // A password in the proxy address (http.proxy, HTTPS_PROXY, HTTP_PROXY) is redacted like http.proxyAuthorization.
      proxySecrets(proxy).forEach((secret) => this.log.addSecret(secret));
      const problem = proxy === undefined ? undefined : proxyProblem(proxy);
      if (problem) {
        problems.push(problem);
      }
    }
    if (http.get<boolean>('proxyStrictSSL') === false && !this.warnedStrictSsl) {
      // Verification is never switched off for a lab: a token must not travel to a host nobody vouched for.
      this.warnedStrictSsl = true;
      this.log.warn('Network', 'http.proxyStrictSSL is false; Lab Data still verifies lab certificates. If your proxy inspects TLS, add its certificate authority to labData.caCertificates.');
    }
    const files = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<string[]>(Settings.caCertificates)?.globalValue;
    const caFiles = Array.isArray(files) ? files.filter((file) => typeof file === 'string' && file.trim()) : [];
    const { ca, problems: caProblems } = loadCertificateAuthorities(caFiles, this.env);
    problems.push(...caProblems);
    caProblems.forEach((problem) => this.log.warn('Network', problem.message));
    return { options: { ...proxySettings, ca }, problems, caFiles };
  }
}
