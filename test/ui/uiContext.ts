import type { Page } from 'playwright-core';

export interface UiContext {
  page: Page;
  /** Opens the workbench with the extension loaded and no test suite. */
  workbenchUrl: string;
  screenshotsDir: string;
  workspace: string;
  /** Opens the workbench on the virtual workspace memfs:/demo (test/fixtures/memfs-extension). */
  virtualWorkbenchUrl?: string;
  /** code-server's user-data folder (its logs hold the "Lab Data" log). */
  userDataDir: string;
  /** The environment the test host runs with (its LAB_DATA_ANSWER_TIMEOUT, for one). */
  hostEnv: NodeJS.ProcessEnv;
  /** Told the full title of each UI test that fails (the runner names it with its host). */
  onFailure?: (title: string) => void;
}

/** Filled by runUi before the tests run. */
export const uiContext = {} as UiContext;
