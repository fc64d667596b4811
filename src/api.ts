import type * as vscode from 'vscode';
import type { DeepLinkHandler } from './ids/deepLinks';
import type { LabIds } from './ids/labIds';
import type { LabTools } from './chat/labTools';
import type { Labs } from './labs/labs';
import type { NewReports } from './news/newReports';
import type { NewReportsChecker } from './news/newReportsChecker';
import type { NewReportsView } from './views/newReportsView';
import type { DrawnOverview, OverviewPanels } from './overview/overviewPanels';
import type { ReportOverview } from '../core/derived/overview';
import type { Timers } from '../core/derived/newReports';
import { PdfPreviewProvider, type PreviewState } from './preview/pdfPreview';
import type { ConnectionStatusBar } from './statusBar';
import type { Prompts, PromptsHolder } from './ui/prompts';
import type { LabNode } from './views/nodes';
import type { Logger } from './log';
import type { SavedFileDecorations } from './provenance/savedDecorations';
import type {
  MissingFilesNotice,
  MissingFilesOutcome,
  NoticeAnswer,
} from './provenance/missingFilesNotice';
import { signInForDemo } from './auth/demoSignIn';
import { errorsShown, warningsShown } from './ui/phrase';
import { progressShown, type ProgressShown } from './ui/progress';

/** One lab as other extensions and tests see it: never its token. */
export interface LabState {
  readonly name: string;
  readonly baseUrl?: string;
  readonly origin?: string;
  readonly signedIn: boolean;
  /** Why the lab cannot be used, when it is misconfigured. */
  readonly problem?: string;
}

/** What `activate` returns to other extensions and to our integration tests. */
export interface LabDataExtensionApi {
  /**
   * The first lab (origin only, never the token) and whether a token is stored for it; with
   * several labs, `labs` lists each. Read once what has begun has settled (a sign-out a lab's 401
   * started, the labs rebuilt after a settings change VS Code has delivered).
   */
  getState(): Promise<{
    readonly baseUrl?: string;
    readonly origin?: string;
    readonly signedIn: boolean;
    readonly labs: readonly LabState[];
  }>;
  /** The data behind each view, to read what the trees show. */
  readonly views: Readonly<
    Record<'reports' | 'clients' | 'samples', vscode.TreeDataProvider<LabNode>>
  >;
  /** The Saved Reports view: its provider, to read the rows as the tree shows them. */
  readonly savedReports: { readonly provider: vscode.TreeDataProvider<LabNode> };
  /** The status bar text now. */
  statusText(): string;
  /** The error notifications commands have shown (newest last, at most 20): their text and buttons. */
  errorsShown(): ReadonlyArray<{ readonly message: string; readonly actions: readonly string[] }>;
  /** The warning notifications shown through `showWarning` (newest last, at most 20): their text and buttons. */
  warningsShown(): ReadonlyArray<{ readonly message: string; readonly actions: readonly string[] }>;
  /** The progress notifications of the work started lately (newest last, at most 20): title, times, messages. */
  progressShown(): ReadonlyArray<Readonly<ProgressShown>>;
  /** The status bar tooltip now. */
  statusTooltip(): string;
  /** How often SecretStorage has been read since activation (tokens are read only when a lab or token changes). */
  secretReads(): number;
  /**
   * Replaces the questions the extension asks (overwrite or not, which folder, which id), for
   * automation and tests; returns a function that restores the dialogs.
   */
  setPrompts(prompts: Prompts): () => void;
  /** Opens a Lab Data link as the URI handler does (`vscode://lab-data.lab-data/report?id=…&lab=…`); resolves with the opened document. */
  openLink(uri: vscode.Uri): Promise<vscode.Uri | undefined>;
  /** Requests hovers have made to look ids up so far (diagnostics for tests). */
  idLookups(): number;
  /** What activation does when `npm run demo` set LABDATA_DEMO_TOKEN (for tests: the demo's sign-in with `token`). */
  demoSignIn(token: string): Promise<void>;
  /** How long `activate()` took, in milliseconds (also in the log). */
  readonly activationMs: number;
  /** The open overview of a lab: its aggregation, what the webview last drew, a bar click and a button press (as a person's). */
  overview(lab: string):
    | {
        readonly overview?: ReportOverview;
        readonly lastDrawn?: DrawnOverview;
        click(chart: 'time' | 'clients' | 'status', index: number): Promise<DrawnOverview>;
        press(button: 'refresh' | 'clearFilter'): Promise<DrawnOverview>;
      }
    | undefined;
  /** The PDF previews: what each viewer reports, and requests to it (go to a page, find, zoom). */
  readonly previews: {
    /** The URI a report's preview opens under. */
    uriOf(lab: string, id: string): vscode.Uri;
    /** What the viewer of `uri` reports now. */
    state(uri: vscode.Uri): PreviewState | undefined;
    /** Sends the viewer a request (`{ type: 'goto', page }`, `{ type: 'find', query }`, `{ type: 'findNext' }`, `{ type: 'zoom', value }`, `{ type: 'getState' }`) and resolves with its answer. */
    ask(
      uri: vscode.Uri,
      request: { readonly type: string; readonly [key: string]: unknown },
    ): Promise<PreviewState>;
    /** As a person's click on a button of the viewer of `uri` (`previewAgain`): whether it was sent. */
    press(uri: vscode.Uri, button: 'previewAgain'): Promise<boolean>;
  };
  /** New reports since the user last looked: the badge, per-lab counts and marks, and knobs for tests. */
  readonly newReports: NewReportsApi;
  /**
   * The Accounts menu's provider: its sessions (one per signed-in lab, named after it), their
   * changes, and `removeSession`, which the menu's Sign Out calls.
   */
  readonly accounts: Pick<
    vscode.AuthenticationProvider,
    'getSessions' | 'removeSession' | 'onDidChangeSessions'
  >;
  /** Uses of reports amended since (Problems, CodeLens, notification). */
  readonly uses: {
    /** Reads every folder's uses and impact again now; settles when the warnings are up to date. */
    refresh(): Promise<void>;
  };
  /** Notebook outputs: the report card renderer's messages. */
  readonly notebooks: {
    /** Handles `message` as the extension handles one from a report card (`{ type: 'preview', id, lab?, origin? }`); resolves with the preview's result. */
    receive(message: unknown): Promise<unknown>;
  };
  /** Saved report files: their Explorer decoration, and the notice of missing files on opening. */
  readonly savedFiles: {
    /** The decoration the Explorer shows for `uri`. */
    decoration(uri: vscode.Uri): vscode.FileDecoration | undefined;
    /**
     * Runs the check activation runs (in `folders`, or every folder with a manifest), with
     * `answer` in place of the person answering the notification.
     */
    checkMissing(answer: NoticeAnswer, folders?: readonly string[]): Promise<MissingFilesOutcome>;
    /** Checks run since activation (activation runs one). */
    missingChecks(): number;
  };
}

/** "New since you last looked" as tests see it; the knobs shorten waits that take seconds or minutes for people. */
export interface NewReportsApi {
  /** The number on the Reports view's badge (0 when none). */
  badge(): number;
  /** New reports of one lab. */
  count(lab: string): number;
  /** The publication time up to which the user has seen a lab's reports. */
  markOf(lab: string): string | undefined;
  /** Looks counted so far (the Reports view visible for a few seconds). */
  looks(): number;
  /** How long the view must be visible to count as a look. */
  setLookDelay(ms: number): void;
  /** Rounds of checks the checker has run. */
  checks(): number;
  /** Settles when no check of any lab is in flight (rounds already started have ended). */
  settled(): Promise<void>;
  /**
   * Replaces the checker's clock (the setting still switches it on and sets its interval), so a
   * test says when an interval has passed; undefined restores the real clock.
   */
  setCheckClock(timers: Timers | undefined): void;
  /** Language-model tool calls so far. */
  toolCalls(): number;
}

export function createExtensionApi(
  labs: Labs,
  views: LabDataExtensionApi['views'],
  statusBar: ConnectionStatusBar,
  prompts: PromptsHolder,
  links: { ids: LabIds; deepLinks: DeepLinkHandler },
  fresh: { news: NewReports; view: NewReportsView; checker: NewReportsChecker; tools: LabTools },
  previews: PdfPreviewProvider,
  overviews: OverviewPanels,
  accounts: LabDataExtensionApi['accounts'],
  saved: { decorations: SavedFileDecorations; missingFiles: MissingFilesNotice },
  activationMs: number,
  log: Logger,
  savedReports: LabDataExtensionApi['savedReports'],
  uses: LabDataExtensionApi['uses'],
  notebooks: LabDataExtensionApi['notebooks'],
): LabDataExtensionApi {
  return {
    uses,
    notebooks,
    savedReports,
    activationMs,
    accounts,
    savedFiles: {
      decoration: (uri) => saved.decorations.provideFileDecoration(uri),
      checkMissing: (answer, folders) => saved.missingFiles.check({ answer, folders }),
      missingChecks: () => saved.missingFiles.checks,
    },
    overview: (lab) => overviews.panelOf(lab),
    previews: {
      uriOf: (lab, id) => PdfPreviewProvider.reportUri(lab, id, labs.signedIn.length > 1),
      state: (uri) => previews.stateOf(uri),
      ask: (uri, request) => previews.ask(uri, request),
      press: (uri, button) => previews.press(uri, button),
    },
    newReports: {
      badge: () => fresh.view.badge,
      count: (lab) => fresh.news.count(lab),
      markOf: (lab) => fresh.news.markOf(lab),
      looks: () => fresh.view.looks,
      setLookDelay: (ms) => (fresh.view.lookMs = ms),
      checks: () => fresh.checker.ticks,
      settled: () => fresh.checker.settled(),
      setCheckClock: (timers) => {
        fresh.checker.clockOverride = timers;
        fresh.checker.restart();
      },
      toolCalls: () => fresh.tools.invocations,
    },
    openLink: (uri) => links.deepLinks.open(uri),
    idLookups: () => links.ids.requests,
    demoSignIn: (token) => signInForDemo(labs, log, { LABDATA_DEMO_TOKEN: token }),
    async getState() {
      await labs.settled();
      const states: LabState[] = labs.entries.map((entry) =>
        entry.kind === 'lab'
          ? {
              name: entry.connection.lab.name,
              baseUrl: entry.connection.lab.url.baseUrl,
              origin: entry.connection.lab.url.origin,
              signedIn: entry.connection.signedIn,
            }
          : {
              name: entry.lab.name,
              baseUrl: entry.lab.baseUrl,
              signedIn: false,
              problem: entry.lab.error.message,
            },
      );
      const first = states.find((state) => state.origin !== undefined);
      return {
        baseUrl: first?.baseUrl,
        origin: first?.origin,
        signedIn: first?.signedIn ?? false,
        labs: states,
      };
    },
    views: { reports: views.reports, clients: views.clients, samples: views.samples },
    statusText: () => statusBar.text,
    errorsShown: () => [...errorsShown],
    warningsShown: () => [...warningsShown],
    progressShown: () =>
      progressShown.map((shown) => ({ ...shown, messages: [...shown.messages] })),
    statusTooltip: () => statusBar.tooltip,
    secretReads: () => labs.secretReads,
    setPrompts(replacement) {
      const previous = prompts.current;
      prompts.current = replacement;
      return () => {
        prompts.current = previous;
      };
    },
  };
}
