import { isLoopbackHost } from '../core/baseUrl';
import type { Logger } from '../log';
import type { LabSession } from './labSession';

/**
 * `npm run demo` starts VS Code with LABDATA_DEMO_TOKEN set, so the demo opens signed in to the
 * mock lab. Honoured only for a lab on this machine (loopback) and only when not signed in, so the
 * variable can never send a token anywhere else or replace a real sign-in.
 */
export async function signInForDemo(session: LabSession, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const token = env.LABDATA_DEMO_TOKEN;
  const lab = session.current.lab;
  if (!token || !lab || session.current.signedIn || !isLoopbackHost(new URL(lab.origin).hostname)) {
    return;
  }
  try {
    await session.signIn(lab.baseUrl, token);
    log.info('Demo', `Signed in to the demo lab at ${lab.origin}.`);
  } catch (error) {
    log.warn('Demo', `Demo sign-in to ${lab.origin} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
