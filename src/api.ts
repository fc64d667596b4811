import type { LabSession } from './auth/labSession';

/** What `activate` returns to other extensions and to our integration tests. */
export interface LabDataExtensionApi {
  /** The configured lab (origin only, never the token) and whether a token is stored for it. */
  getState(): Promise<{ readonly baseUrl?: string; readonly origin?: string; readonly signedIn: boolean }>;
}

export function createExtensionApi(session: LabSession): LabDataExtensionApi {
  return {
    async getState() {
      const state = await session.refresh();
      return { baseUrl: state.lab?.baseUrl, origin: state.lab?.origin, signedIn: state.signedIn };
    },
  };
}
