import * as assert from 'node:assert/strict';
import {
  DEFAULT_ENDPOINTS,
  LabPaths,
  endpointTemplateProblem,
  parseEndpoints,
  type EndpointName,
} from '../../../../core/api/endpoints';
import type { LabApiError } from '../../../../core/errors/errors';
import {
  DEFAULT_FILTERS,
  freeLabName,
  isInvalidLab,
  labPaths,
  nameWithAddress,
  parseLabDefinition,
  parseLabDefinitions,
  type LabDefinition,
} from '../../../../core/api/labDefinition';

function valid(entry: unknown): LabDefinition {
  const parsed = parseLabDefinition(entry, 0);
  assert.ok(!isInvalidLab(parsed), isInvalidLab(parsed) ? parsed.error.message : '');
  return parsed;
}

function problemOf(entry: unknown): string {
  const parsed = parseLabDefinition(entry, 0);
  assert.ok(isInvalidLab(parsed), `expected ${JSON.stringify(entry)} to be invalid`);
  return parsed.error.message;
}

describe('endpoint templates', () => {
  it('accept paths with the placeholder each endpoint needs', () => {
    for (const [name, template] of Object.entries(DEFAULT_ENDPOINTS) as Array<
      [EndpointName, string]
    >) {
      assert.equal(endpointTemplateProblem(name, template), undefined, name);
    }
    assert.equal(endpointTemplateProblem('reports', '/api/v1/certificates'), undefined);
    assert.equal(
      endpointTemplateProblem('reportFile', '/api/v2/documents/{report_id}/pdf'),
      undefined,
    );
  });

  it('refuse every hostile or broken template, each with a reason', () => {
    const hostile: Array<[EndpointName, unknown]> = [
      ['reports', ''],
      ['reports', 'api/v1/reports'],
      ['reports', '//evil.example/api'],
      ['reports', '/https://evil.example/x'],
      ['reports', '/api/../../admin'],
      ['reports', '/api/%2e%2e/admin'],
      ['reports', '/api/%2E%2E/admin'],
      ['reports', '/api/.%2e/admin'],
      ['reports', '/api/./reports'],
      ['reports', '/api/%2f%2fevil'],
      ['reports', '/api/reports?all=1'],
      ['reports', '/api/reports#x'],
      ['reports', '/api\\reports'],
      ['reports', '/api/re ports'],
      ['reports', '/api/\u0000reports'],
      ['reports', '/api/%zz'],
      ['reports', '/api/reports/{report_id}'],
      ['report', '/api/v1/reports'],
      ['report', '/api/v1/reports/{report_id}/{report_id}'],
      ['report', '/api/v1/reports/{id}'],
      ['report', '/api/v1/reports/{client_id}'],
      ['client', '/api/v1/clients/{report_id}'],
      ['reportFile', '/api/v1/reports/{report_id/file'],
      ['reports', 42],
      ['reports', `/${'a'.repeat(400)}`],
    ];
    for (const [name, template] of hostile) {
      const problem = endpointTemplateProblem(name, template);
      assert.ok(problem, `${name}: ${JSON.stringify(template)} must be refused`);
      assert.match(problem, new RegExp(`endpoint "${name}"`));
    }
  });

  it('fill placeholders with one percent-encoded segment, so an id can never change the path', () => {
    const paths = new LabPaths('/lims', {
      ...DEFAULT_ENDPOINTS,
      reportFile: '/api/v2/documents/{report_id}/pdf',
    });
    assert.equal(paths.reports(), '/lims/api/v1/reports');
    assert.equal(paths.reportFile('RPT-1'), '/lims/api/v2/documents/RPT-1/pdf');
    assert.equal(paths.report('a/../../b'), '/lims/api/v1/reports/a%2F..%2F..%2Fb');
    assert.equal(paths.client('C 1?x#y'), '/lims/api/v1/clients/C%201%3Fx%23y');
    assert.throws(
      () => paths.report('..'),
      (error: LabApiError) => error.code === 'invalidInput',
    );
  });

  it('collect every problem of an endpoints object, and ignore none', () => {
    const { problems } = parseEndpoints({
      reports: '/ok',
      report: '/x/{id}',
      bogus: '/y',
      samples: '../s',
    });
    assert.equal(problems.length, 3);
    assert.ok(problems.some((p) => p.includes('"bogus" is not an endpoint')));
    assert.deepEqual(parseEndpoints('nope').problems, [
      '"endpoints" must be an object of path templates',
    ]);
  });
});

describe('lab definitions', () => {
  it('read a full definition with its own endpoints, page size, concurrency and filters', () => {
    const lab = valid({
      name: 'Meridian',
      baseUrl: 'https://lab.example.com/lims/api/v1/',
      endpoints: { reports: '/api/v1/certificates' },
      pageSize: 100,
      maxConcurrentRequests: 2,
      filters: ['published_since', 'status'],
    });
    assert.equal(lab.name, 'Meridian');
    assert.equal(lab.url.origin, 'https://lab.example.com');
    assert.equal(lab.url.basePath, '/lims');
    assert.equal(labPaths(lab).reports(), '/lims/api/v1/certificates');
    assert.equal(labPaths(lab).report('R-1'), '/lims/api/v1/reports/R-1');
    assert.equal(lab.pageSize, 100);
    assert.equal(lab.maxConcurrentRequests, 2);
    assert.deepEqual(lab.filters, ['published_since', 'status']);
    assert.equal(lab.shorthand, false);
  });

  it('read a lab’s own proxy and certificate files, and refuse ones that are not', () => {
    const own = valid({
      name: 'Harbor',
      baseUrl: 'https://lims.example.com',
      proxy: ' http://user:pw@proxy.harbor.example:3128 ',
      caCertificates: ['/etc/harbor/root.pem'],
    });
    assert.equal(own.proxy, 'http://user:pw@proxy.harbor.example:3128');
    assert.deepEqual(own.caCertificates, ['/etc/harbor/root.pem']);
    const plain = valid({ name: 'Plain', baseUrl: 'https://lims.example.com' });
    assert.ok(
      !('proxy' in plain) && !('caCertificates' in plain),
      'nothing added when none is named',
    );
    assert.match(
      problemOf({ name: 'Bad', baseUrl: 'https://lims.example.com', proxy: 'not a proxy' }),
      /"proxy" must be a proxy address/,
    );
    assert.match(
      problemOf({ name: 'Bad', baseUrl: 'https://lims.example.com', caCertificates: ['', 3] }),
      /"caCertificates" must list PEM files/,
    );
  });

  it('default to every filter of the spec and the spec endpoints', () => {
    const lab = valid({ name: 'Plain', baseUrl: 'https://lab.example.com' });
    assert.deepEqual(lab.filters, DEFAULT_FILTERS);
    assert.deepEqual(lab.endpoints, DEFAULT_ENDPOINTS);
  });

  it('make a lab with any problem unusable, naming every problem', () => {
    assert.match(problemOf({ name: 'X', baseUrl: 'http://lab.example.com' }), /https/);
    assert.match(problemOf({ name: 'X' }), /"baseUrl" is missing/);
    assert.match(problemOf({ baseUrl: 'https://lab.example.com' }), /"name" must be/);
    assert.match(
      problemOf({ name: 'bad\u202ename', baseUrl: 'https://lab.example.com' }),
      /"name" must be/,
    );
    assert.match(
      problemOf({ name: 'X', baseUrl: 'https://lab.example.com', pageSize: 0 }),
      /pageSize/,
    );
    assert.match(
      problemOf({ name: 'X', baseUrl: 'https://lab.example.com', maxConcurrentRequests: 99 }),
      /maxConcurrentRequests/,
    );
    assert.match(
      problemOf({
        name: 'X',
        baseUrl: 'https://lab.example.com',
        filters: ['status', 'everything'],
      }),
      /"filters" must list only/,
    );
    const both = problemOf({
      name: 'X',
      baseUrl: 'https://lab.example.com',
      endpoints: { reports: '/a/../b' },
      pageSize: 'many',
    });
    assert.match(
      both,
      /^The lab "X" is set up wrongly in labData\.labs: endpoint "reports" .*"\.\." segments.*; "pageSize" must be/,
    );
    assert.match(problemOf('just a string'), /each entry must be an object/);
  });

  it('keep names unique, and add the labData.baseUrl shorthand named after its host unless a lab has it', () => {
    const { labs, invalid } = parseLabDefinitions(
      [
        { name: 'A', baseUrl: 'https://a.example' },
        { name: 'a', baseUrl: 'https://other.example' },
        { name: 'B', baseUrl: 'https://b.example', endpoints: { reports: '/../x' } },
      ],
      'https://c.example:8443/api/v1',
    );
    assert.deepEqual(
      labs.map((lab) => [lab.name, lab.shorthand]),
      [
        ['c.example:8443', true],
        ['A', false],
      ],
    );
    assert.deepEqual(
      invalid.map((lab) => lab.name),
      ['a', 'B'],
    );
    assert.match(invalid[0]!.error.message, /another lab already has this name/);
    assert.equal(
      parseLabDefinitions([{ name: 'A', baseUrl: 'https://a.example' }], 'https://a.example').labs
        .length,
      1,
      'the same address is one lab',
    );
    assert.equal(parseLabDefinitions(undefined, 'not a url').invalid[0]!.name, 'labData.baseUrl');
    assert.deepEqual(parseLabDefinitions('not an array', undefined), { labs: [], invalid: [] });
  });

  it('give every error a catalogue id and arguments, for translation', () => {
    const parsed = parseLabDefinition({ name: 'X', baseUrl: 'ftp://x' }, 0);
    assert.ok(isInvalidLab(parsed));
    assert.equal(parsed.error.text?.id, 'labInvalid');
    assert.equal(parsed.error.text?.args.name, 'X');
  });
});

describe('nameWithAddress', () => {
  it('puts the address after a lab’s own name, and says an address-named lab once', () => {
    const harbor = valid({ name: 'Harbor', baseUrl: 'https://lab.example:8443/api/v1' });
    assert.equal(nameWithAddress(harbor), 'Harbor (lab.example:8443)');
    const byAddress = valid({
      name: 'lab.example:8443',
      baseUrl: 'https://lab.example:8443/api/v1',
    });
    assert.equal(nameWithAddress(byAddress), 'lab.example:8443');
  });
});

describe('freeLabName', () => {
  const takenOf =
    (...names: string[]) =>
    (candidate: string): boolean =>
      names.some((name) => name.toLowerCase() === candidate.trim().toLowerCase());

  it('keeps a free name, and proposes "name (2)", "(3)", … for one in use, in any case', () => {
    assert.equal(freeLabName('Meridian', takenOf('Harbor')), 'Meridian');
    assert.equal(freeLabName(' Meridian ', takenOf('meridian')), 'Meridian (2)');
    assert.equal(freeLabName('Meridian', takenOf('Meridian', 'MERIDIAN (2)')), 'Meridian (3)');
  });

  it('stays within the 60 characters a lab name may have', () => {
    const long = 'M'.repeat(60);
    const free = freeLabName(long, takenOf(long));
    assert.equal(free, `${'M'.repeat(56)} (2)`);
    assert.equal(free.length, 60);
  });
});
