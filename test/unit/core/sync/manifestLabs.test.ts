import * as assert from 'node:assert/strict';
import {
  labOffer,
  labServing,
  labsMissing,
  manifestLabKeys,
  preferredLabs,
  sectionBaseUrl,
  type MachineLab,
} from '../../../../core/sync/manifestLabs';
import type { LabSection, ManifestEntry, SyncManifest } from '../../../../core/sync/manifestModel';

const entry = (id: string, source = `/api/v1/reports/${id}/file`): ManifestEntry => ({
  report_id: id,
  file: `${id}.pdf`,
  bytes: 10,
  sha256: 'a'.repeat(64),
  source,
});

const section = (origin: string, ids: string[], source?: (id: string) => string): LabSection => ({
  origin,
  files: Object.fromEntries(ids.map((id) => [id, entry(id, source?.(id))])),
});

const manifest = (labs: Record<string, LabSection>): SyncManifest => ({ version: 3, labs });

const meridian: MachineLab = {
  name: 'Meridian',
  origin: 'https://meridian.example',
  signedIn: true,
};
const harbor: MachineLab = { name: 'Harbor', origin: 'https://harbor.example', signedIn: true };
const alias: MachineLab = {
  name: 'Riverside (VPN)',
  origin: 'https://riverside.internal',
  signedIn: true,
};

describe('the labs a manifest names and the labs of this machine', () => {
  it('a lab serves a section by its address, never by its name alone', () => {
    assert.equal(labServing({ name: 'Meridian', origin: meridian.origin }, [meridian]), meridian);
    assert.equal(
      labServing({ name: 'What a colleague calls it', origin: meridian.origin }, [
        harbor,
        meridian,
      ]),
      meridian,
      'a teammate may call the same lab another name',
    );
    assert.equal(
      labServing({ name: 'Meridian', origin: 'https://elsewhere.example' }, [meridian]),
      undefined,
      'the same name at another address is not the same lab: no token goes there',
    );
  });

  it('a lab remembered for an origin serves it, while it exists', () => {
    const key = { name: 'Riverside', origin: 'https://riverside.example' };
    assert.equal(labServing(key, [meridian, alias]), undefined);
    assert.equal(
      labServing(key, [meridian, alias], { 'https://riverside.example': alias.name }),
      alias,
    );
    assert.equal(
      labServing(key, [meridian], { 'https://riverside.example': alias.name }),
      undefined,
      'a remembered lab that was removed serves nothing',
    );
    assert.equal(
      labServing({ name: 'x', origin: 'toString' }, [meridian], {}),
      undefined,
      'only the map’s own keys count',
    );
  });

  it('lists each missing lab once, in the manifest’s order', () => {
    const folder = manifest({
      Harbor: section(harbor.origin, ['H-1']),
      Riverside: section('https://riverside.example', ['R-1']),
      'Riverside (old name)': section('https://riverside.example', []),
    });
    assert.deepEqual(manifestLabKeys(folder), [
      { name: 'Harbor', origin: harbor.origin },
      { name: 'Riverside', origin: 'https://riverside.example' },
      { name: 'Riverside (old name)', origin: 'https://riverside.example' },
    ]);
    assert.deepEqual(labsMissing(folder, [harbor]), [
      { name: 'Riverside', origin: 'https://riverside.example' },
    ]);
    assert.deepEqual(
      labsMissing(folder, [harbor, alias], { 'https://riverside.example': alias.name }),
      [],
    );
  });

  it('proposes the folder’s own labs first, the one with the most files first', () => {
    const folder = manifest({
      Harbor: section(harbor.origin, ['H-1']),
      Meridian: section(meridian.origin, ['M-1', 'M-2']),
      Unknown: section('https://unknown.example', ['U-1', 'U-2', 'U-3']),
    });
    assert.deepEqual(preferredLabs([folder], [harbor, meridian]), ['Meridian', 'Harbor']);
    assert.deepEqual(preferredLabs([], [harbor, meridian]), []);
  });

  it('takes the base URL from the recorded sources: the path in front of the standard file endpoint', () => {
    assert.equal(
      sectionBaseUrl(
        section(
          'https://lab.example',
          ['R 1'],
          (id) => `/lims/api/v1/reports/${encodeURIComponent(id)}/file`,
        ),
      ),
      'https://lab.example/lims',
    );
    assert.equal(sectionBaseUrl(section('https://lab.example', ['R-1'])), 'https://lab.example');
    assert.equal(
      sectionBaseUrl(section('https://lab.example', ['R-1'], () => '/v2/files/R-1')),
      'https://lab.example',
      'a lab with its own paths: the origin alone',
    );
  });

  it('offers the lab at the manifest’s address only in a trusted workspace and only for an address a lab can have', () => {
    const riverside = section('https://riverside.example', ['R-1']);
    const context = { labs: [meridian], trusted: true };
    assert.deepEqual(labOffer('Riverside', riverside, context), {
      kind: 'offer',
      name: 'Riverside',
      origin: 'https://riverside.example',
      baseUrl: 'https://riverside.example',
      nameUsable: true,
    });
    assert.deepEqual(labOffer('Riverside', riverside, { ...context, trusted: false }), {
      kind: 'untrusted',
      name: 'Riverside',
      origin: 'https://riverside.example',
    });
    assert.equal(labOffer('Meridian', section(meridian.origin, []), context).kind, 'served');
    assert.equal(
      labOffer('Meridian', section(meridian.origin, []), { ...context, trusted: false }).kind,
      'served',
      'a lab the machine has is used whatever the workspace',
    );
    const plain = labOffer('Plain', section('http://lab.example', ['R-1']), context);
    assert.equal(plain.kind, 'unusable', 'never a token over plain http to another machine');
    assert.equal(
      labOffer('Creds', section('https://user:pw@lab.example', []), context).kind,
      'unusable',
    );
    const taken = labOffer('meridian', riverside, context);
    assert.ok(
      taken.kind === 'offer' && !taken.nameUsable,
      'a name this machine uses is asked anew',
    );
  });
});
