import * as vscode from 'vscode';
import type { LabApiError } from '../../core/errors/errors';
import {
  loadCertificateAuthorities,
  proxyFor,
  proxyProblem,
  proxySecrets,
  resolveProxySettings,
  systemCertificates,
  type NetworkOptions,
} from '../../core/connection/network';
import {
  FallbackTransport,
  FetchTransport,
  isUntrustedChain,
} from '../../core/connection/fetchTransport';
import { UndiciTransport } from '../../core/connection/undiciTransport';
import type { TransportFactory } from '../../core/connection/transport';
import type { LabDefinition } from '../../core/api/labDefinition';
import { HTTP_SETTINGS_SECTION, SETTINGS_SECTION, Settings } from '../constants';
import type { Logger } from '../log';

/** Which transport lab requests take, and why (for the log and Check Connection). */
export interface TransportChoice {
  readonly kind: 'vscode' | 'direct';
  readonly reason: string;
}

/** A choice in words: "VS Code's network stack (…): why" or "Lab Data's own connection (undici): why". */
function inWords(choice: TransportChoice): string {
  return choice.kind === 'vscode'
    ? `VS Code's network stack (its proxy, proxy sign-in and certificates): ${choice.reason}`
    : `Lab Data's own connection (undici): ${choice.reason}`;
}

/** What the settings give, read once per change. */
interface NetworkState {
  readonly options: NetworkOptions;
  readonly problems: LabApiError[];
  readonly choice: TransportChoice;
  /** The files named in `labData.caCertificates` (user settings), as written. */
  readonly caFiles: string[];
  /** The operating system's trusted certificates (none when `http.systemCertificates` is off), read once per change. */
  readonly system: readonly string[];
}

/** Whether a lab's definition names its own proxy or certificates (then it always takes Lab Data's own connection). */
function hasOwnNetwork(lab: LabDefinition): boolean {
  return Boolean(lab.proxy || lab.caCertificates);
}

/**
 * Turns VS Code's `http.proxy`, `http.noProxy`, `http.proxyAuthorization` and `http.proxyStrictSSL`,
 * the proxy environment variables and `labData.caCertificates` (user settings only) into the
 * core's {@link NetworkOptions}, and says when they change.
 */
export class NetworkSettings implements vscode.Disposable {
  private current: NetworkState;
  /** What the log last said about the settings' choice, and the labs whose own choice it said. */
  private saidChoice = '';
  private readonly saidLabs = new Set<string>();
  private readonly perLab = new Map<
    string,
    { readonly lab: string; readonly options: NetworkOptions }
  >();
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
      if (
        event.affectsConfiguration(HTTP_SETTINGS_SECTION) ||
        event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.caCertificates}`) ||
        event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.network}`)
      ) {
        this.reload();
      }
    });
  }

  get options(): NetworkOptions {
    return this.current.options;
  }

  /**
   * How one lab's requests leave: VS Code's own network stack (the extension host's `fetch`, which
   * VS Code patches with its proxy resolution, proxy sign-in and certificates) unless it cannot serve,
   * then Lab Data's own (undici, with the explicit proxy settings, the environment, the OS trust store,
   * `NODE_EXTRA_CA_CERTS` and `labData.caCertificates`); always Lab Data's own for a lab whose
   * definition names its own proxy or certificates. The log says which, and why, once per change.
   */
  choiceFor(lab?: LabDefinition): TransportChoice {
    if (lab && hasOwnNetwork(lab)) {
      const choice: TransportChoice = {
        kind: 'direct',
        reason: `its definition names its own ${lab.proxy ? 'proxy' : 'certificates'}`,
      };
      if (!this.saidLabs.has(lab.name)) {
        this.saidLabs.add(lab.name);
        this.log.info('Network', `Requests to ${lab.name} go through ${inWords(choice)}.`);
      }
      return choice;
    }
    const { choice } = this.current;
    const said = `${choice.kind}:${choice.reason}`;
    if (said !== this.saidChoice) {
      this.saidChoice = said;
      this.log.info('Network', `Lab requests go through ${inWords(choice)}.`);
    }
    return choice;
  }

  /** The certificate files one lab's own connection trusts: `labData.caCertificates`, then the lab's own. */
  caFilesFor(lab: LabDefinition): string[] {
    return [...this.current.caFiles, ...(lab.caCertificates ?? [])];
  }

  /**
   * The network options of one lab: the settings', or, for a lab that names its own `proxy` or
   * `caCertificates`, those on top of them (its proxy instead of any other; its certificates besides the others).
   */
  optionsFor(lab: LabDefinition): NetworkOptions {
    if (!hasOwnNetwork(lab)) {
      return this.current.options;
    }
    const cached = this.perLab.get(lab.name);
    if (cached && cached.lab === JSON.stringify(lab)) {
      return cached.options;
    }
    const base = this.current.options;
    const proxy = lab.proxy
      ? resolveProxySettings({
          proxy: lab.proxy,
          proxySource: `the lab definition of ${lab.name}`,
          noProxy: [],
        })
      : undefined;
    proxySecrets(lab.proxy).forEach((secret) => this.log.addSecret(secret));
    const { ca, problems } = loadCertificateAuthorities(
      this.caFilesFor(lab),
      this.env,
      undefined,
      this.current.system,
    );
    problems.forEach((problem) => this.log.warn('Network', problem.message));
    const options: NetworkOptions = {
      ...base,
      ...(proxy ? { ...proxy, proxyAuthorization: base.proxyAuthorization } : {}),
      ca,
    };
    this.perLab.set(lab.name, { lab: JSON.stringify(lab), options });
    return options;
  }

  /**
   * Which way one lab's requests leave, and why, in a sentence for Check Connection (steps 1 to 4 there
   * use the settings Lab Data reads; on VS Code's network stack only step 5 takes the lab's real path).
   */
  describeTransport(lab: LabDefinition): string {
    const choice = this.choiceFor(lab);
    return choice.kind === 'vscode'
      ? `${inWords(choice)}. Steps 1 to 4 use the settings Lab Data reads; a PAC file, the system proxy or Kerberos show only in step 5.`
      : `${inWords(choice)}.`;
  }

  /** Builds the transport of one lab's client, as {@link choiceFor} chose (undefined: the core's own, undici). */
  transportFactory(lab?: LabDefinition): TransportFactory | undefined {
    if (this.choiceFor(lab).kind === 'direct') {
      return undefined;
    }
    const options = this.current.options;
    const fallBack = Boolean(this.env.NODE_EXTRA_CA_CERTS);
    return (settings) => {
      const vscodeFetch = new FetchTransport({
        ...settings,
        name: 'VS Code',
        fetch: (input, init) => fetch(input, init),
        proxyFor: (url) => this.vscodeProxyFor(url, options),
      });
      if (!fallBack) {
        return vscodeFetch;
      }
      // VS Code's fetch does not add NODE_EXTRA_CA_CERTS: a chain it does not trust is tried once more on undici, which does, and stays there.
      return new FallbackTransport(
        vscodeFetch,
        () => new UndiciTransport({ ...settings, network: options }),
        isUntrustedChain,
        () =>
          this.log.info(
            'Network',
            "VS Code's network stack did not trust the lab's certificate; Lab Data's own connection, which adds NODE_EXTRA_CA_CERTS, is used for this lab from now on.",
          ),
      );
    };
  }

  /**
   * The proxy VS Code's fetch uses for `url`, as far as Lab Data can tell, for messages only: none when
   * `http.proxySupport` is off, else what the settings and the environment name (a PAC file or the
   * operating system's proxy on desktop stay unknown here).
   */
  private vscodeProxyFor(url: URL, options: NetworkOptions): string | undefined {
    return vscode.workspace.getConfiguration(HTTP_SETTINGS_SECTION).get<string>('proxySupport') ===
      'off'
      ? undefined
      : proxyFor(url, options);
  }

  /** Why the network settings cannot be used as they are (an unreadable CA file, a malformed proxy). */
  get problems(): readonly LabApiError[] {
    return this.current.problems;
  }

  /** Reads the settings and the environment again (the environment cannot announce its changes). */
  reload(): void {
    this.perLab.clear();
    this.current = this.read();
    this.changed.fire();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private read(): NetworkState {
    const http = vscode.workspace.getConfiguration(HTTP_SETTINGS_SECTION);
    // http.proxySupport "off" sends extensions' requests direct in VS Code; Lab Data's own connection does the same
    // (a lab whose definition names its own proxy still uses it).
    const proxySupportOff = http.get<string>('proxySupport') === 'off';
    const proxySettings = resolveProxySettings({
      proxy: proxySupportOff ? undefined : http.get<string>('proxy'),
      proxySource: 'http.proxy',
      noProxy: http.get<string[]>('noProxy') ?? [],
      proxyAuthorization: http.get<string | null>('proxyAuthorization') ?? undefined,
      env: proxySupportOff ? {} : this.env,
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
      this.log.warn(
        'Network',
        'http.proxyStrictSSL is false; Lab Data still verifies lab certificates. If your proxy inspects TLS, add its certificate authority to labData.caCertificates.',
      );
    }
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const files = config.inspect<string[]>(Settings.caCertificates)?.globalValue;
    const caFiles = Array.isArray(files)
      ? files.filter((file) => typeof file === 'string' && file.trim())
      : [];
    // On Lab Data's own connection the OS trust store is added to Node's roots, as VS Code does with http.systemCertificates.
    const system =
      http.get<boolean>('systemCertificates') === false ? [] : systemCertificates().certificates;
    const { ca, problems: caProblems } = loadCertificateAuthorities(
      caFiles,
      this.env,
      undefined,
      system,
    );
    problems.push(...caProblems);
    caProblems.forEach((problem) => this.log.warn('Network', problem.message));
    const choice = this.choose(
      config.inspect<string>(Settings.network)?.globalValue,
      http,
      Boolean(proxySettings.proxyAuthorization),
      caFiles.length > 0,
    );
    return { options: { ...proxySettings, ca }, problems, choice, caFiles, system };
  }

  /** The settings' choice of transport: the first reason VS Code's network stack cannot serve, else it. */
  private choose(
    network: string | undefined,
    http: vscode.WorkspaceConfiguration,
    proxyAuthorization: boolean,
    caFiles: boolean,
  ): TransportChoice {
    if (network === 'direct') {
      return { kind: 'direct', reason: 'labData.network is "direct"' };
    }
    if (http.get<boolean>('fetchAdditionalSupport') === false) {
      return {
        kind: 'direct',
        reason: "VS Code's network support for extensions is off (http.fetchAdditionalSupport)",
      };
    }
    if (proxyAuthorization) {
      return {
        kind: 'direct',
        reason:
          "http.proxyAuthorization is set, and VS Code's network stack answers a proxy's request for credentials with Kerberos or its own prompt, not with this setting",
      };
    }
    if (caFiles) {
      return {
        kind: 'direct',
        reason:
          "labData.caCertificates names certificate authorities that VS Code's network stack would not add",
      };
    }
    if (typeof fetch !== 'function') {
      return { kind: 'direct', reason: 'this VS Code has no fetch in its extension host' };
    }
    return {
      kind: 'vscode',
      reason: this.env.NODE_EXTRA_CA_CERTS
        ? 'labData.network is "vscode" (a certificate only NODE_EXTRA_CA_CERTS holds switches a lab to Lab Data\'s own connection)'
        : 'labData.network is "vscode"',
    };
  }
}
