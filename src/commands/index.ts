import { Commands } from '../constants';
import type { LabSession } from '../auth/labSession';
import type { CommandHandler } from './commandRunner';
import { signIn } from './signIn';
import { signOut } from './signOut';

/** The table of every command id and its handler. */
export function commandTable(session: LabSession): Record<string, CommandHandler> {
  return {
    [Commands.signIn]: (args?: unknown) => signIn(session, args),
    [Commands.signOut]: () => signOut(session),
  };
}
