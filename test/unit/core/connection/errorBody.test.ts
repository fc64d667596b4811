import * as assert from 'node:assert/strict';
import { readErrorBody } from '../../../../core/connection/errorBody';
import type { LabApiError } from '../../../../core/errors/errors';
import { buildSupportReport } from '../../../../core/derived/supportReport';
import { SECRET_TOKEN, rejection, startMockLab } from '../../helpers';

describe('error bodies from the lab', function () {
  this.timeout(30_000);
  it('an error body that echoes the token, with a forged line and bidi override, reaches message, log line and support report clean', async () => {
    const lab = await startMockLab({
      faults: { echoToken: true, status: { status: 400, times: 1 } },
    });
    try {
      const logged: string[] = [];
      const error = (await rejection(
        lab
          .api(SECRET_TOKEN, { log: (_level: string, line: string) => logged.push(line) })
          .listReports(),
      )) as LabApiError;
      for (const text of [
        error.message,
        error.describe(),
        JSON.stringify(error),
        error.reason ?? '',
        buildSupportReport(error, {
          tenant: 'lab',
          integration: 'Lab Data',
          at: new Date(),
          timeZone: 'UTC',
        }),
        ...logged,
      ]) {
        assert.ok(!text.includes(SECRET_TOKEN), `no token in: ${text}`);
        assert.ok(
          !/[\u0000-\u001f\u202a-\u202e]/.test(text.replace(/\n/g, '')),
          `no controls in: ${JSON.stringify(text)}`,
        );
      }
      assert.match(
        error.reason!,
        /injected failure 400 forged line for credential Bearer \[redacted\]/,
      );
    } finally {
      await lab.close();
    }
  });

  for (const [shape, expected] of [
    ['detail', /The lab said: “injected failure 400”/],
    [
      'fields',
      /The lab said: “status: injected failure 400; page_size: Ensure this value is less than or equal to 200\.”/,
    ],
    ['problem', /The lab said: “injected: injected failure 400”/],
    ['text', /The lab said: “400 Error injected failure 400”/],
  ] as const) {
    it(`gives the server's reason from a "${shape}" error body`, async () => {
      const lab = await startMockLab({
        faults: { errorShape: shape, status: { status: 400, times: 1 } },
      });
      try {
        const error = (await rejection(lab.api().listReports())) as LabApiError;
        assert.match(error.message, expected);
      } finally {
        await lab.close();
      }
    });
  }
});

describe('readErrorBody', () => {
  it('finds the reason in the shapes servers send: detail, error.message, problem details, errors lists, a JSON string', () => {
    assert.deepEqual(readErrorBody('{"detail":"Not found."}', 'application/json'), {
      reason: 'Not found.',
      requestId: undefined,
    });
    assert.deepEqual(
      readErrorBody('{"error":{"message":"Bad page.","request_id":"req-7"}}', 'application/json'),
      { reason: 'Bad page.', requestId: 'req-7' },
    );
    assert.equal(
      readErrorBody('{"title":"Bad Request","detail":"page_size too big"}', 'application/json')
        .reason,
      'Bad Request: page_size too big',
    );
    assert.equal(
      readErrorBody('{"errors":[{"message":"first"},{"message":"second"}]}', '').reason,
      'first second',
    );
    assert.equal(readErrorBody('"a plain reason"', 'application/json').reason, 'a plain reason');
    assert.equal(
      readErrorBody('{"error":"invalid_token"}', 'application/json').reason,
      'invalid_token',
    );
  });

  it('reads field-keyed validation errors as Django REST Framework sends them, leaving out ids and codes', () => {
    assert.equal(
      readErrorBody(
        '{"status":["Select a valid choice."],"non_field_errors":["Dates out of order."],"code":"invalid","request_id":"r-1"}',
        'application/json',
      ).reason,
      'status: Select a valid choice.; Dates out of order.',
    );
    assert.equal(
      readErrorBody('{"errors":{"page_size":["Too big."]}}', 'application/json').reason,
      'page_size: Too big.',
    );
  });

  it('takes a request id from the body or its error object, numbers too', () => {
    assert.equal(readErrorBody('{"detail":"x","trace_id":12345}', '').requestId, '12345');
    assert.equal(
      readErrorBody('{"error":{"message":"x","correlationId":"c-9"}}', '').requestId,
      'c-9',
    );
    assert.equal(readErrorBody('{"detail":"x"}', '').requestId, undefined);
  });

  it('drops tags, scripts and styles from an HTML page; says nothing for an empty body or broken JSON', () => {
    assert.equal(
      readErrorBody(
        '<html><head><style>h1{color:red}</style></head><body><h1>502 Bad Gateway</h1><script>alert(1)</script></body></html>',
        'text/html',
      ).reason,
      '502 Bad Gateway',
    );
    assert.deepEqual(readErrorBody('\ufeff   ', 'application/json'), {});
    assert.deepEqual(readErrorBody('{"detail": ', 'application/json'), {});
    assert.equal(readErrorBody('{"detail": ', 'text/plain').reason, '{"detail":');
  });

  it('passes everything through serverText: one line, no bidi override, capped at 300 characters', () => {
    assert.equal(
      readErrorBody('{"detail":"line one\\nline two\\u202e"}', 'application/json').reason,
      'line one line two',
    );
    const long = readErrorBody(JSON.stringify({ detail: 'x'.repeat(1000) }), '').reason!;
    assert.equal(long.length, 300);
    assert.ok(long.endsWith('…'));
    const id = readErrorBody(
      JSON.stringify({ detail: 'x', request_id: 'i'.repeat(500) }),
      '',
    ).requestId!;
    assert.equal(id.length, 120);
  });
});
