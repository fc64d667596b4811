// Which lab of this machine serves each lab a folder's manifest names: the repository says which
// lab (a section's name and origin), the machine says which account (its labs, and what the person
// told it about a lab it knows under another address).

import { DEFAULT_ENDPOINTS } from '../api/endpoints';
import { labNameProblem } from '../api/labDefinition';
import { parseBaseUrl } from '../connection/baseUrl';
import { errorText } from '../errors/errorText';
import type { LabKey, LabSection, SyncManifest } from './manifestModel';

/** A lab this machine defines, as far as matching it to a manifest goes. */
export interface MachineLab {
  readonly name: string;
  /** Its address's origin (`scheme://host[:port]`), where its token goes. */
  readonly origin: string;
  readonly signedIn: boolean;
}

/**
 * What this machine remembers about repositories' labs (in VS Code, `labData.manifestLabs`, a
 * setting of the machine's user, never of a workspace): a manifest's origin → the name of the lab
 * on this machine that serves it, for a lab this machine reaches at another address (an internal
 * alias, a proxy's name). Names and addresses only: never a token.
 */
export type ManifestLabMap = Readonly<Record<string, string>>;

/** Every lab a manifest names, by its section's name and origin, in the manifest's order. */
export function manifestLabKeys(manifest: SyncManifest): LabKey[] {
  return Object.entries(manifest.labs).map(([name, section]) => ({
    name,
    origin: section.origin,
  }));
}

/**
 * The lab of this machine that serves a manifest's lab: the one remembered for its origin (when
 * that lab still exists), else the lab of the same name at that origin, else any lab at that
 * origin; none when this machine has no lab there (a token is never sent to a lab chosen by name
 * alone: the address is what says which lab it is).
 */
export function labServing(
  key: LabKey,
  labs: readonly MachineLab[],
  remembered: ManifestLabMap = {},
): MachineLab | undefined {
  const chosen = Object.hasOwn(remembered, key.origin) ? remembered[key.origin] : undefined;
  const byChoice = chosen === undefined ? undefined : labs.find((lab) => lab.name === chosen);
  return (
    byChoice ??
    labs.find((lab) => lab.name === key.name && lab.origin === key.origin) ??
    labs.find((lab) => lab.origin === key.origin)
  );
}

/** The labs a manifest names that no lab of this machine serves, each origin once. */
export function labsMissing(
  manifest: SyncManifest,
  labs: readonly MachineLab[],
  remembered: ManifestLabMap = {},
): LabKey[] {
  const seen = new Set<string>();
  return manifestLabKeys(manifest).filter((key) => {
    if (seen.has(key.origin) || labServing(key, labs, remembered)) {
      return false;
    }
    seen.add(key.origin);
    return true;
  });
}

/**
 * The labs of this machine that serve these manifests (a folder's own labs), by name: the one
 * serving the section with the most files first, each lab once. Where a person would be asked
 * "Which lab?" for such a folder, these are proposed first.
 */
export function preferredLabs(
  manifests: readonly SyncManifest[],
  labs: readonly MachineLab[],
  remembered: ManifestLabMap = {},
): string[] {
  const files = new Map<string, number>();
  for (const manifest of manifests) {
    for (const [name, section] of Object.entries(manifest.labs)) {
      const lab = labServing({ name, origin: section.origin }, labs, remembered);
      if (lab) {
        files.set(lab.name, (files.get(lab.name) ?? 0) + Object.keys(section.files).length);
      }
    }
  }
  // A stable sort: labs with as many files keep the manifests' order.
  return [...files].sort(([, a], [, b]) => b - a).map(([name]) => name);
}

/**
 * The lab's base URL as the section's files show it: its origin, followed by the path in front of
 * the standard file endpoint in a recorded source (`/lims/api/v1/reports/R-1/file` → `/lims`);
 * the origin alone when no source shows one (a lab with its own paths is added with Add Lab).
 */
export function sectionBaseUrl(section: LabSection): string {
  const [before, after] = DEFAULT_ENDPOINTS.reportFile.split('{report_id}') as [string, string];
  for (const id in section.files) {
    const source = section.files[id]!.source;
    const tail = `${before}${encodeURIComponent(id)}${after}`;
    if (typeof source === 'string' && source.endsWith(tail) && source.startsWith('/')) {
      const prefix = source.slice(0, -tail.length);
      if (/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) {
        return `${section.origin}${prefix}`;
      }
    }
  }
  return section.origin;
}

/** What to do about one lab a manifest names. */
export type LabOffer =
  /** A lab of this machine serves it: nothing to offer. */
  | { readonly kind: 'served'; readonly lab: MachineLab }
  /** This machine has no lab there: offer to add it at `baseUrl`, once the person has seen and confirmed it. */
  | {
      readonly kind: 'offer';
      readonly name: string;
      readonly origin: string;
      readonly baseUrl: string;
      /** The manifest's name can name a lab here (valid, and no lab of this machine has it). */
      readonly nameUsable: boolean;
    }
  /**
   * The workspace is not trusted (VS Code's Restricted Mode): an address a repository names is
   * not offered, since adding it would ask for a token to send there.
   */
  | { readonly kind: 'untrusted'; readonly name: string; readonly origin: string }
  /** The manifest's address cannot be a lab's (not https, credentials in it…): `reason` says why. */
  | {
      readonly kind: 'unusable';
      readonly name: string;
      readonly origin: string;
      readonly reason: string;
    };

/**
 * Whether to offer adding the lab a manifest's section names: never when a lab of this machine
 * serves it, never in an untrusted workspace (the address is repository content), never for an
 * address that cannot be a lab's; otherwise at the base URL its files show.
 */
export function labOffer(
  name: string,
  section: LabSection,
  context: {
    readonly labs: readonly MachineLab[];
    readonly remembered?: ManifestLabMap;
    readonly trusted: boolean;
  },
): LabOffer {
  const key = { name, origin: section.origin };
  const served = labServing(key, context.labs, context.remembered);
  if (served) {
    return { kind: 'served', lab: served };
  }
  if (!context.trusted) {
    return { kind: 'untrusted', ...key };
  }
  let baseUrl: string;
  try {
    const parsed = parseBaseUrl(sectionBaseUrl(section));
    if (parsed.origin !== section.origin) {
      return { kind: 'unusable', ...key, reason: `"${section.origin}" is not an origin` };
    }
    baseUrl = parsed.baseUrl;
  } catch (error) {
    return { kind: 'unusable', ...key, reason: errorText(error) };
  }
  const nameUsable =
    labNameProblem(name) === undefined &&
    !context.labs.some((lab) => lab.name.toLowerCase() === name.trim().toLowerCase());
  return { kind: 'offer', ...key, baseUrl, nameUsable };
}
