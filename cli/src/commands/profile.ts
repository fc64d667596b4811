import * as path from 'node:path';
import {
  CLONE_PROFILE_SAID,
  PROFILE_VARIABLE,
  PROFILES_FILE,
  profileNameOf,
  profileSourceSaid,
  readCloneProfile,
  readProfiles,
  SelectionError,
  useCloneProfile,
} from '../../../core/derived/selection';
import { serverText } from '../../../core/errors/serverText';
import type { CliContext } from '../context';
import { CliError, Exit, type ExitCode } from '../exitCodes';
import { out } from '../output';

const USAGE =
  'lab-data profile [FOLDER] | profile use NAME [FOLDER] | profile use --clear [FOLDER]';

/** `lab-data profile use NAME|--clear [FOLDER]`: sets or forgets the clone's own profile. */
async function use(context: CliContext, args: readonly string[]): Promise<ExitCode> {
  const clear = context.flag('clear');
  const [name, folderGiven, ...rest] = clear ? [undefined, ...args] : args;
  if ((!clear && name === undefined) || rest.length > 0) {
    throw new CliError(`Usage: ${USAGE}`, Exit.usage);
  }
  const folder = path.resolve(folderGiven ?? 'lab-reports');
  await useCloneProfile(folder, name);
  const file = path.join(folder, CLONE_PROFILE_SAID);
  const said =
    name === undefined
      ? `${folder}: this clone has no profile of its own now (${file} removed); the default of ${PROFILES_FILE}, if any, applies.`
      : `${folder}: this clone's own profile is "${name}" (${file}, never committed); pull, status and verify select by it unless --profile, ${PROFILE_VARIABLE} or --all says otherwise.`;
  // A profile's name comes from a committed file: made safe to print.
  await out(`${serverText(said, 1000)}\n`);
  return Exit.ok;
}

/** `lab-data profile [FOLDER]`: which profile applies to the folder and why, and the file's profiles. */
async function show(context: CliContext, args: readonly string[]): Promise<ExitCode> {
  if (args.length > 1) {
    throw new CliError(`Usage: ${USAGE}`, Exit.usage);
  }
  const folder = path.resolve(args[0] ?? 'lab-reports');
  const [profiles, clone] = await Promise.all([readProfiles(folder), readCloneProfile(folder)]);
  const variable = context.env[PROFILE_VARIABLE];
  const applies = profileNameOf({ environment: variable, clone }, profiles);
  const known = applies === undefined || profiles?.profiles.has(applies.name) === true;
  const names = [...(profiles?.profiles.keys() ?? [])];
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          folder,
          profile: applies?.name,
          source: applies?.source,
          known,
          clone_profile: clone,
          variable: variable?.trim() || undefined,
          default: profiles?.default,
          profiles: names,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    const lines = [
      applies === undefined
        ? `${folder}: no profile applies: pull, status and verify take every report (lab-data profile use NAME gives this clone one).`
        : `${folder}: profile "${applies.name}" applies (${profileSourceSaid(applies.source)})${known ? '.' : `, but ${PROFILES_FILE} has no such profile: pull, status and verify refuse to run.`}`,
      clone === undefined
        ? `This clone's own profile: none (${CLONE_PROFILE_SAID}).`
        : `This clone's own profile: "${clone}" (${CLONE_PROFILE_SAID}; lab-data profile use --clear forgets it).`,
      profiles === undefined
        ? `The folder has no ${PROFILES_FILE}.`
        : `${PROFILES_FILE}: ${names.map((each) => `"${each}"${each === profiles.default ? ' (default)' : ''}`).join(', ') || 'no profiles'}.`,
    ];
    await out(`${lines.map((line) => serverText(line, 1000)).join('\n')}\n`);
  }
  return known ? Exit.ok : Exit.usage;
}

/** `lab-data profile`: the clone's own profile, shown, set or forgotten (core: selection.ts). */
export async function profile(context: CliContext): Promise<ExitCode> {
  const [action, ...args] = context.command.positionals;
  try {
    if (action === 'use') {
      return await use(context, args);
    }
    if (context.flag('clear')) {
      throw new CliError(
        `--clear goes with use: lab-data profile use --clear [FOLDER].`,
        Exit.usage,
      );
    }
    return await show(context, action === undefined ? [] : [action, ...args]);
  } catch (error) {
    if (error instanceof SelectionError) {
      throw new CliError(error.message, Exit.usage);
    }
    throw error;
  }
}
