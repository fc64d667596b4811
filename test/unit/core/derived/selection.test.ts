import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  chooseSelection,
  parseProfiles,
  profileNameOf,
  PROFILES_FILE,
  readCloneProfile,
  readProfiles,
  selectionOfFolder,
  useCloneProfile,
  resolveTime,
  SelectionError,
  selectEntries,
  selectsReport,
  type Profiles,
  type SelectionCriteria,
  type SelectionRequest,
} from '../../../../core/derived/selection';
import type { ManifestEntry, SyncManifest } from '../../../../core/sync/manifestModel';

const NOW = new Date('2026-03-15T12:00:00Z');

function entry(id: string, fields: Partial<ManifestEntry>): ManifestEntry {
  return {
    report_id: id,
    file: `${id}.pdf`,
    bytes: 100,
    sha256: 'a'.repeat(64),
    source: `/api/v1/reports/${id}/file`,
    ...fields,
  };
}

/** Two labs: Main (four reports of two clients) and Riverside (one). */
const MANIFEST: SyncManifest = {
  version: 3,
  labs: {
    Main: {
      origin: 'https://lab.example.com',
      files: {
        'R-1': entry('R-1', {
          client: 'C-1',
          project: 'P-1',
          status: 'published',
          type: 'soil',
          samples: ['S-1', 'S-2'],
          published_at: '2026-01-10T09:00:00Z',
        }),
        'R-2': entry('R-2', {
          client: 'C-1',
          project: 'P-2',
          status: 'amended',
          type: 'water',
          samples: ['S-3'],
          published_at: '2026-01-31T23:59:59Z',
        }),
        'R-3': entry('R-3', {
          client: 'C-2',
          project: 'P-3',
          status: 'published',
          type: 'soil',
          published_at: '2026-02-01T00:00:00Z',
          bytes: 300,
        }),
        'R-4': entry('R-4', {
          client: 'C-2',
          project: 'P-3',
          status: 'published',
          type: 'air',
          published_at: '2026-03-14T12:00:00Z',
        }),
      },
    },
    Riverside: {
      origin: 'https://river.example.org',
      files: {
        'X-1': entry('X-1', { client: 'C-1', published_at: '2026-02-20T08:00:00Z' }),
      },
    },
  },
};

function request(flags: SelectionCriteria, more: Partial<SelectionRequest> = {}): SelectionRequest {
  return { flags, flagsSaid: 'the flags', ...more };
}

/** The ids a request selects from MANIFEST, sorted. */
function ids(
  flags: SelectionCriteria,
  profiles?: Profiles,
  more?: Partial<SelectionRequest>,
): string[] {
  const chosen = chooseSelection(MANIFEST, profiles, request(flags, more), NOW);
  return Object.values(chosen.manifest.labs)
    .flatMap((section) => Object.keys(section.files))
    .sort();
}

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof SelectionError, `a SelectionError, not ${String(error)}`);
    return error.message;
  }
  throw new Error('expected a SelectionError');
}

const profiles = (value: unknown): Profiles =>
  parseProfiles(JSON.stringify(value), `/repo/reports/${PROFILES_FILE}`);

describe("selection of a manifest's reports (pull, status and verify a subset)", () => {
  it('without flags or profile, selects every report and leaves the manifest whole', () => {
    const chosen = chooseSelection(MANIFEST, undefined, request({}), NOW);
    assert.equal(chosen.selection, undefined);
    assert.equal(chosen.total, 5);
    assert.equal(chosen.selected, 5);
    assert.deepEqual(chosen.manifest, MANIFEST);
  });

  it('selects by each recorded field', () => {
    assert.deepEqual(ids({ client: ['C-2'] }), ['R-3', 'R-4']);
    assert.deepEqual(ids({ project: ['P-2'] }), ['R-2']);
    assert.deepEqual(ids({ status: ['amended'] }), ['R-2']);
    assert.deepEqual(ids({ type: ['soil'] }), ['R-1', 'R-3']);
    assert.deepEqual(ids({ sample: ['S-2'] }), ['R-1'], "any of a report's samples");
    assert.deepEqual(ids({ report: ['R-4', 'X-1'] }), ['R-4', 'X-1']);
  });

  it('selects a lab by its name or by an address of its origin', () => {
    assert.deepEqual(ids({ lab: ['Riverside'] }), ['X-1']);
    assert.deepEqual(ids({ lab: ['https://river.example.org/api/v1/'] }), ['X-1']);
    assert.deepEqual(ids({ lab: ['https://lab.example.com'] }), ['R-1', 'R-2', 'R-3', 'R-4']);
  });

  it('ORs the values of one field and ANDs the fields', () => {
    assert.deepEqual(ids({ type: ['water', 'air'] }), ['R-2', 'R-4']);
    assert.deepEqual(ids({ client: ['C-1'], type: ['soil', 'water'] }), ['R-1', 'R-2']);
    assert.deepEqual(ids({ client: ['C-1'], lab: ['Main'] }), ['R-1', 'R-2']);
  });

  it('selects by publication: --since and --until, dates, timestamps and ages; a date alone for --until includes its day', () => {
    assert.deepEqual(ids({ since: '2026-02-01' }), ['R-3', 'R-4', 'X-1']);
    assert.deepEqual(
      ids({ until: '2026-01-31' }),
      ['R-1', 'R-2'],
      'the 31st included, to its last second',
    );
    assert.deepEqual(ids({ since: '2026-01-31', until: '2026-02-01' }), ['R-2', 'R-3']);
    assert.deepEqual(ids({ until: '2026-01-31T12:00:00Z' }), ['R-1']);
    assert.deepEqual(ids({ since: '30d' }), ['R-4', 'X-1'], 'an age, as sync --since');
    assert.deepEqual(ids({ since: '4w', until: '2d' }), ['X-1']);
    assert.equal(resolveTime('30d', NOW, 'since'), Date.parse('2026-02-13T12:00:00Z'));
  });

  it('a report without a publication date is not selected by one', () => {
    const manifest: SyncManifest = {
      version: 3,
      labs: {
        Main: {
          origin: 'https://lab.example.com',
          files: {
            A: entry('A', { published_at: '2026-01-01T00:00:00Z' }),
            B: entry('B', {}),
          },
        },
      },
    };
    const chosen = chooseSelection(manifest, undefined, request({ since: '2025-01-01' }), NOW);
    assert.deepEqual(Object.keys(chosen.manifest.labs.Main!.files), ['A']);
  });

  it('restricts the manifest: counts, bytes, and labs with nothing selected left out', () => {
    const chosen = chooseSelection(MANIFEST, undefined, request({ client: ['C-2'] }), NOW);
    assert.equal(chosen.total, 5);
    assert.equal(chosen.selected, 2);
    assert.equal(chosen.bytes, 400);
    assert.deepEqual(Object.keys(chosen.manifest.labs), ['Main']);
    assert.equal(chosen.manifest.labs.Main!.origin, 'https://lab.example.com');
    assert.equal(chosen.said, 'the flags');
    assert.deepEqual(selectEntries(MANIFEST, { rules: [] }).selected, 5);
  });

  it('applies the same rule to a report a lab lists (status --remote: what is new at the lab)', () => {
    const chosen = chooseSelection(
      MANIFEST,
      undefined,
      request({ client: ['C-1'], since: '2026-02-15' }),
      NOW,
    );
    const report = (client: string, published: string) => ({
      report_id: 'R-9',
      client_id: client,
      published_at: published,
      raw: {},
    });
    assert.equal(
      selectsReport(
        chosen.selection!,
        'Main',
        'https://lab.example.com',
        report('C-1', '2026-03-10T00:00:00Z'),
      ),
      true,
    );
    assert.equal(
      selectsReport(
        chosen.selection!,
        'Main',
        'https://lab.example.com',
        report('C-2', '2026-03-10T00:00:00Z'),
      ),
      false,
    );
    assert.equal(
      selectsReport(
        chosen.selection!,
        'Main',
        'https://lab.example.com',
        report('C-1', '2026-02-10T00:00:00Z'),
      ),
      false,
    );
  });

  it('a selection of none is an error naming it and the count, with --all named when a default profile chose it', () => {
    assert.match(
      failure(() => ids({ client: ['C-9'] })),
      /The selection \(the flags\) selects none of the 5 reports in the manifest/,
    );
    const file = profiles({
      version: 1,
      default: 'old',
      profiles: { old: { until: '2025-01-01' } },
    });
    assert.match(
      failure(() => ids({}, file)),
      /profile "old".*none of the 5 reports.*--all selects without it/,
    );
  });

  it('refuses a lab the manifest lacks, by name or address, and a field no report records', () => {
    assert.match(
      failure(() => ids({ lab: ['Elsewhere'] })),
      /names the lab "Elsewhere", which the manifest does not have by that name \(its labs: "Main" at https:\/\/lab\.example\.com, "Riverside" at https:\/\/river\.example\.org\)/,
    );
    assert.match(
      failure(() => ids({ lab: ['https://other.example.com'] })),
      /does not have at that address/,
    );
    assert.match(
      failure(() => ids({ lab: ['ftp://x'] })),
      /the flags: /,
      'an address that is no lab address',
    );
    const bare: SyncManifest = {
      version: 3,
      labs: { Main: { origin: 'https://lab.example.com', files: { A: entry('A', {}) } } },
    };
    for (const flags of [
      { sample: ['S-1'] },
      { type: ['soil'] },
      { since: '2026-01-01' },
    ] as SelectionCriteria[]) {
      assert.match(
        failure(() => chooseSelection(bare, undefined, request(flags), NOW)),
        /which no report in the manifest records/,
      );
    }
  });

  it('refuses a date it cannot read, and a since after the until', () => {
    assert.match(
      failure(() => ids({ since: 'yesterday' })),
      /since/,
    );
    assert.match(
      failure(() => ids({ until: '2026-02-30' })),
      /until/,
    );
    assert.match(
      failure(() => ids({ since: '2026-02-01', until: '2026-01-01' })),
      /"since" 2026-02-01 is after "until" 2026-01-01/,
    );
  });
});

describe('profiles (lab-data-profiles.json beside the manifest)', () => {
  const FILE = {
    version: 1,
    default: 'mine',
    profiles: {
      mine: { client: ['C-1'], since: '2026-01-01', description: 'my reports' },
      soil: { type: 'soil' },
      river: { lab: ['Riverside'] },
    },
  };

  it('reads profiles, a default, and one value given as text', () => {
    const read = profiles(FILE);
    assert.equal(read.default, 'mine');
    assert.deepEqual(read.profiles.get('mine'), {
      name: 'mine',
      description: 'my reports',
      criteria: { client: ['C-1'], since: '2026-01-01' },
    });
    assert.deepEqual(read.profiles.get('soil')!.criteria, { type: ['soil'] });
  });

  it('the default applies unless --profile names another or --all, and flags narrow a profile', () => {
    const read = profiles(FILE);
    assert.deepEqual(ids({}, read), ['R-1', 'R-2', 'X-1']);
    const chosen = chooseSelection(MANIFEST, read, request({}), NOW);
    assert.deepEqual(chosen.profile, { name: 'mine', source: 'default' });
    assert.deepEqual(ids({}, read, { profile: 'soil' }), ['R-1', 'R-3']);
    assert.deepEqual(
      chooseSelection(MANIFEST, read, request({}, { profile: 'soil' }), NOW).profile,
      { name: 'soil', source: 'flag' },
    );
    assert.deepEqual(ids({}, read, { all: true }), ['R-1', 'R-2', 'R-3', 'R-4', 'X-1']);
    assert.equal(
      chooseSelection(MANIFEST, read, request({}, { all: true }), NOW).selection,
      undefined,
    );
    assert.deepEqual(ids({ lab: ['Main'] }, read), ['R-1', 'R-2'], 'flags narrow the default');
    assert.deepEqual(ids({ lab: ['Main'] }, read, { all: true }), ['R-1', 'R-2', 'R-3', 'R-4']);
    assert.equal(
      chooseSelection(MANIFEST, read, request({ lab: ['Main'] }), NOW).said,
      'profile "mine" with the flags',
    );
  });

  it('a file without a default selects nothing by itself', () => {
    const noDefault = { version: 1, profiles: FILE.profiles };
    assert.equal(
      chooseSelection(MANIFEST, profiles(noDefault), request({}), NOW).selection,
      undefined,
    );
  });

  it('refuses a profile it does not have, --profile with --all, and --profile without a file', () => {
    assert.match(
      failure(() => ids({}, profiles(FILE), { profile: 'theirs' })),
      /has no profile "theirs" \(its profiles: mine, soil, river\)/,
    );
    assert.match(
      failure(() => ids({}, profiles(FILE), { profile: 'soil', all: true })),
      /--profile or --all, not both/,
    );
    assert.match(
      failure(() => ids({}, undefined, { profile: 'mine' })),
      /no profile "mine": the folder has no lab-data-profiles\.json/,
    );
  });

  it('refuses a profile naming a lab or a field the manifest lacks', () => {
    const lab = profiles({ version: 1, profiles: { far: { lab: ['Elsewhere'] } } });
    assert.match(
      failure(() => ids({}, lab, { profile: 'far' })),
      /lab-data-profiles\.json: profile "far" names the lab "Elsewhere", which the manifest does not have/,
    );
    const bare: SyncManifest = {
      version: 3,
      labs: { Main: { origin: 'https://lab.example.com', files: { A: entry('A', {}) } } },
    };
    const field = profiles({ version: 1, default: 'p', profiles: { p: { project: 'P-1' } } });
    assert.match(
      failure(() => chooseSelection(bare, field, request({}), NOW)),
      /profile "p" selects by project, which no report in the manifest records/,
    );
  });

  it('reads its file strictly: unknown keys, wrong types, a bad version or default are errors naming the place', () => {
    const bad: Array<[unknown, RegExp]> = [
      [
        { version: 1, profiles: { p: { colour: ['red'] } } },
        /profile "p" has an unknown field "colour" \(known: lab, client/,
      ],
      [{ version: 1, profiles: {}, extra: true }, /unknown key "extra"/],
      [{ version: 2, profiles: {} }, /has version 2; this lab-data reads version 1/],
      [{ profiles: {} }, /has version none/],
      [{ version: 1 }, /needs "profiles"/],
      [{ version: 1, profiles: [] }, /needs "profiles"/],
      [{ version: 1, profiles: { p: ['C-1'] } }, /profile "p" must be an object/],
      [
        { version: 1, profiles: { p: { client: 1001 } } },
        /"client" must be a list of one or more values/,
      ],
      [{ version: 1, profiles: { p: { client: [] } } }, /"client" must be a list/],
      [{ version: 1, profiles: { p: { client: ['C-1', 7] } } }, /"client" must be a list/],
      [{ version: 1, profiles: { p: { since: ['2026-01-01'] } } }, /"since" must be text/],
      [
        { version: 1, default: 'q', profiles: { p: {} } },
        /"default" must name one of its profiles \(p\), not "q"/,
      ],
      [{ version: 1, default: 3, profiles: { p: {} } }, /"default" must name one/],
      [[], /must hold an object/],
    ];
    for (const [value, message] of bad) {
      assert.match(
        failure(() => profiles(value)),
        message,
        JSON.stringify(value),
      );
      assert.match(
        failure(() => profiles(value)),
        /^lab-data-profiles\.json/,
      );
    }
    assert.match(
      failure(() => parseProfiles('{"version": 1,', PROFILES_FILE)),
      /lab-data-profiles\.json is not JSON/,
    );
  });

  it("chooses one profile: --profile, then LAB_DATA_PROFILE, then the clone's own, then the file's default; --all none", () => {
    const read = profiles(FILE);
    const by = (given: Partial<SelectionRequest>): unknown =>
      chooseSelection(MANIFEST, read, request({}, given), NOW).profile;
    assert.deepEqual(by({ clone: 'soil' }), { name: 'soil', source: 'clone' });
    assert.deepEqual(by({ clone: 'soil', environment: 'river' }), {
      name: 'river',
      source: 'environment',
    });
    assert.deepEqual(by({ clone: 'soil', environment: 'river', profile: 'mine' }), {
      name: 'mine',
      source: 'flag',
    });
    assert.deepEqual(by({ environment: '  ' }), { name: 'mine', source: 'default' });
    assert.equal(by({ clone: 'soil', environment: 'river', all: true }), undefined);
    assert.deepEqual(
      profileNameOf({ clone: 'soil' }, undefined),
      { name: 'soil', source: 'clone' },
      'the rule names the profile; the file says whether it has one',
    );
    assert.match(
      failure(() => ids({}, read, { clone: 'gone' })),
      /lab-data-profiles\.json has no profile "gone" \(its profiles: mine, soil, river\)\. It was this clone's, named in \.lab-data\/profile\./,
    );
    assert.match(
      failure(() => ids({}, read, { environment: 'gone' })),
      /has no profile "gone" .* It was named by LAB_DATA_PROFILE\./,
    );
    assert.match(
      failure(() => ids({ report: ['R-4'] }, read, { clone: 'mine' })),
      /\(Profile "mine" is this clone's, named in \.lab-data\/profile; --all selects without it\.\)/,
    );
  });

  it("keeps the clone's own profile in .lab-data/profile, refusing a name the file lacks, and forgets it", async () => {
    const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-profiles-'));
    try {
      assert.equal(await readCloneProfile(folder), undefined);
      await assert.rejects(
        useCloneProfile(folder, 'mine'),
        /no profile "mine": the folder has no lab-data-profiles\.json/,
      );
      await fs.writeFile(path.join(folder, PROFILES_FILE), JSON.stringify(FILE));
      await assert.rejects(
        useCloneProfile(folder, 'theirs'),
        /lab-data-profiles\.json has no profile "theirs" \(its profiles: mine, soil, river\)/,
      );
      await assert.rejects(fs.stat(path.join(folder, '.lab-data')), { code: 'ENOENT' });
      await useCloneProfile(folder, 'soil');
      assert.equal(await fs.readFile(path.join(folder, '.lab-data', 'profile'), 'utf8'), 'soil\n');
      assert.match(
        await fs.readFile(path.join(folder, '.lab-data', '.gitignore'), 'utf8'),
        /^\*$/m,
      );
      assert.equal(await readCloneProfile(folder), 'soil');
      const chosen = await selectionOfFolder(folder, MANIFEST, request({}), NOW);
      assert.deepEqual(chosen.profile, { name: 'soil', source: 'clone' });
      assert.equal(
        (await selectionOfFolder(folder, MANIFEST, request({}, { all: true }), NOW)).selection,
        undefined,
      );
      await useCloneProfile(folder, undefined);
      assert.equal(await readCloneProfile(folder), undefined);
      assert.deepEqual((await selectionOfFolder(folder, MANIFEST, request({}), NOW)).profile, {
        name: 'mine',
        source: 'default',
      });
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  it('reads the file from the folder, and none when there is none', async () => {
    const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-profiles-'));
    try {
      assert.equal(await readProfiles(folder), undefined);
      await fs.writeFile(path.join(folder, PROFILES_FILE), JSON.stringify(FILE));
      assert.equal((await readProfiles(folder))!.default, 'mine');
      await fs.writeFile(path.join(folder, PROFILES_FILE), '{');
      await assert.rejects(readProfiles(folder), SelectionError);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});
