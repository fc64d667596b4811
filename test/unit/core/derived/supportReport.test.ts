import * as assert from 'node:assert/strict';
import { LabApiError } from '../../../../core/errors/errors';
import { buildSupportReport } from '../../../../core/derived/supportReport';

describe('support reports', () => {
  it('holds every field spec section 7 asks for, withholds unknown parameters, and redacts secrets', () => {
    const error = new LabApiError('server', 'The lab failed.', {
      status: 502,
      path: '/api/v1/reports',
      requestId: 'req-9',
      params: { page: '1', client_id: 'C-1', access_token: 'tok_secret' },
      attempts: 4,
    });
    const text = buildSupportReport(
      error,
      {
        tenant: 'lab.example.com',
        integration: 'Lab Data for VS Code 0.1.0',
        at: new Date('2026-11-01T10:00:00Z'),
        timeZone: 'UTC',
      },
      ['tok_secret'],
    );
    assert.match(text, /Timestamp: .+\(UTC[+-]\d{2}:\d{2}\) UTC; 2026-11-01T10:00:00.000Z/);
    assert.match(text, /Endpoint: GET \/api\/v1\/reports/);
    assert.match(text, /HTTP status: 502/);
    assert.match(text, /Request ID: req-9/);
    assert.match(text, /Tenant: lab\.example\.com/);
    assert.match(text, /Integration: Lab Data for VS Code 0\.1\.0/);
    assert.match(text, /Request parameters: page=1, client_id=C-1, access_token=\[withheld\]/);
    assert.match(text, /after 4 attempts/);
    assert.match(text, /Is a production workflow blocked\?/);
    assert.ok(!text.includes('tok_secret'));
  });
});
