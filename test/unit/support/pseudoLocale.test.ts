import * as assert from 'node:assert/strict';
import { lstat, mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  englishLeftovers,
  pseudoExtension,
  pseudoLocalize,
  registerPseudoLanguagePack,
  removePseudoBundles,
  writePseudoBundles,
} from '../../support/pseudoLocale';

describe('the pseudo-locale qps-ploc made at test time', () => {
  it('marks and lengthens every word, keeping placeholders, codicons, link targets and addresses', () => {
    assert.equal(pseudoLocalize('Sign In'), '[Şīīɠƞ ĪĪƞ]');
    assert.equal(pseudoLocalize('{0} reports'), '[{0} řḗḗƥǿǿřŧş]');
    assert.equal(pseudoLocalize('$(sync~spin) Syncing {name}…'), '[$(sync~spin) Şẏƞƈīīƞɠ {name}…]');
    assert.equal(
      pseudoLocalize('Connect first.\n[Sign In](command:labData.signIn)'),
      '[Ƈǿǿƞƞḗḗƈŧ ƒīīřşŧ.]\n[Şīīɠƞ ĪĪƞ](command:labData.signIn)',
      'a lone link stays a button of the welcome view',
    );
    assert.equal(
      pseudoLocalize('See `labData.baseUrl` at https://lab.example/api'),
      '[Şḗḗḗḗ `labData.baseUrl` ȧȧŧ https://lab.example/api]',
    );
    assert.equal(pseudoLocalize('50%'), '50%', 'nothing to translate, nothing marked');
    const long = 'Reports per week, by type';
    assert.ok(pseudoLocalize(long).length >= long.length * 1.3, 'about a third longer');
  });

  it('writes both bundles from the English ones, registers a language pack, and removes the bundles again', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'lab-data-pseudo-'));
    try {
      await mkdir(path.join(root, 'l10n'));
      await writeFile(
        path.join(root, 'l10n', 'bundle.l10n.json'),
        JSON.stringify({ 'Export {0}': 'Export {0}' }),
      );
      await writeFile(path.join(root, 'package.nls.json'), JSON.stringify({ title: 'Sign In' }));
      const english = writePseudoBundles(root);
      assert.deepEqual(english, { l10n: ['Export {0}'], nls: ['Sign In'] });
      assert.deepEqual(
        JSON.parse(await readFile(path.join(root, 'l10n', 'bundle.l10n.qps-ploc.json'), 'utf8')),
        { 'Export {0}': '[ḖḖẋƥǿǿřŧ {0}]' },
      );
      assert.deepEqual(
        JSON.parse(await readFile(path.join(root, 'package.nls.qps-ploc.json'), 'utf8')),
        { title: '[Şīīɠƞ ĪĪƞ]' },
      );
      removePseudoBundles(root);
      await assert.rejects(readFile(path.join(root, 'package.nls.qps-ploc.json')));
      registerPseudoLanguagePack(root);
      const packs = JSON.parse(await readFile(path.join(root, 'languagepacks.json'), 'utf8'));
      assert.deepEqual(Object.keys(packs), ['qps-ploc']);
      assert.ok(JSON.parse(await readFile(packs['qps-ploc'].translations.vscode, 'utf8')).contents);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('finds English messages left on screen, placeholders filled, and not their pseudo forms', () => {
    const messages = [
      '{0} reports match the filter',
      'Sign In',
      'Refresh',
      'PDF',
      'Save as CSV',
      'Report {0}',
    ];
    assert.deepEqual(
      englishLeftovers(
        [
          '12 reports match the filter',
          pseudoLocalize('{0} reports match the filter').replace('{0}', '12'),
          pseudoLocalize('Sign In'),
          'PDF · RPT-2026-000001',
          'Refresh',
          'Save as CSVs',
          'RPT-1 · Field Data Report',
          'Report RPT-1',
        ],
        messages,
      ),
      [
        { text: '12 reports match the filter', message: '{0} reports match the filter' },
        { text: 'Refresh', message: 'Refresh' },
        { text: 'Report RPT-1', message: 'Report {0}' },
      ],
    );
  });

  it('makes a pseudo-localised copy of the extension beside the repository, never writing into it', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'lab-data-pseudo-root-'));
    const folder = await mkdtemp(path.join(tmpdir(), 'lab-data-pseudo-copy-'));
    try {
      await mkdir(path.join(root, 'l10n'));
      await mkdir(path.join(root, 'dist'));
      await writeFile(path.join(root, 'l10n', 'bundle.l10n.json'), JSON.stringify({ A: 'Open' }));
      await writeFile(path.join(root, 'package.nls.json'), JSON.stringify({ title: 'Sign In' }));
      await writeFile(path.join(root, 'package.json'), '{}');
      const before = (await readdir(root, { recursive: true })).sort();
      const { extensionPath, english } = pseudoExtension(root, folder);
      assert.deepEqual(english, { l10n: ['Open'], nls: ['Sign In'] });
      assert.deepEqual((await readdir(root, { recursive: true })).sort(), before, 'root untouched');
      assert.ok((await lstat(path.join(extensionPath, 'dist'))).isDirectory());
      assert.ok((await lstat(path.join(extensionPath, 'package.json'))).isFile());
      assert.deepEqual(
        JSON.parse(await readFile(path.join(extensionPath, 'package.nls.qps-ploc.json'), 'utf8')),
        { title: '[Şīīɠƞ ĪĪƞ]' },
      );
      assert.deepEqual(
        JSON.parse(
          await readFile(path.join(extensionPath, 'l10n', 'bundle.l10n.qps-ploc.json'), 'utf8'),
        ),
        { A: pseudoLocalize('Open') },
      );
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(folder, { recursive: true, force: true });
    }
  });
});
