import { isLoopbackHost } from '../../core/connection/baseUrl';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import { errorText } from '../../core/errors/errorText';

/**
 * `npm run demo` starts VS Code with LABDATA_DEMO_TOKEN set, so the demo opens signed in to the
 * mock lab. Honoured only for the first lab, only on this machine (loopback) and only when not
 * signed in, so the variable can never send a token anywhere else or replace a real sign-in.
 */
export async function signInForDemo(
  labs: Labs,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const token = env.LABDATA_DEMO_TOKEN;
  const connection = labs.all[0];
  if (
    !token ||
    !connection ||
    connection.signedIn ||
    !isLoopbackHost(new URL(connection.lab.url.origin).hostname)
  ) {
    return;
  }
  const { lab } = connection;
  try {
    // A lab called after its address is named as it is signed in to, by the name it gives itself.
    const { lab: named } = await labs.signIn(lab.url.baseUrl, token, lab.name);
    log.info('Demo', `Signed in to the demo lab ${named.name} at ${lab.url.origin}.`);
  } catch (error) {
    log.warn('Demo', `Demo sign-in to ${lab.url.origin} failed: ${errorText(error)}`);
  }
}
