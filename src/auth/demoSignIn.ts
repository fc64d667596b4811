import { isLoopbackHost } from '../../core/connection/baseUrl';
import { namedAfterAddress, type Labs } from '../labs/labs';
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
    const { ownName } = await labs.signIn(lab.url.baseUrl, token, lab.name);
    // The demo's lab is called by the name it gives itself, as a person's sign-in names it.
    const named =
      ownName && namedAfterAddress(lab) && !labs.get(ownName)
        ? (await labs.rename(lab.name, ownName)).name
        : lab.name;
    log.info('Demo', `Signed in to the demo lab ${named} at ${lab.url.origin}.`);
  } catch (error) {
    log.warn('Demo', `Demo sign-in to ${lab.url.origin} failed: ${errorText(error)}`);
  }
}
