import * as assert from 'node:assert/strict';
import { errorCode, errorText, systemReason } from '../../../../core/errors/errorText';
import { LabApiError } from '../../../../core/errors/errors';

describe('errorText', () => {
  it("says an Error's message, without its name", () => {
    assert.equal(errorText(new Error('disk full')), 'disk full');
    assert.equal(errorText(new TypeError('not a function')), 'not a function');
    assert.equal(
      errorText(new LabApiError('notFound', 'Report R-1 was not found.')),
      'Report R-1 was not found.',
    );
    assert.equal(errorText(new Error('')), '');
  });

  it('says anything else thrown as String renders it', () => {
    assert.equal(errorText('plain words'), 'plain words');
    assert.equal(errorText(42), '42');
    assert.equal(errorText(undefined), 'undefined');
    assert.equal(errorText(null), 'null');
    assert.equal(errorText({ message: 'not an Error' }), '[object Object]');
  });

  it('never throws itself, even for a value String cannot render', () => {
    assert.equal(errorText(Object.create(null)), '[object Object]');
  });
});

function systemError(code: string, onCause = false): Error {
  if (onCause) {
    return new Error('fetch failed', { cause: Object.assign(new Error('inner'), { code }) });
  }
  return Object.assign(new Error(`${code} while talking`), { code });
}

describe('errorCode', () => {
  it('reads an error code from the error or its cause', () => {
    assert.equal(errorCode(systemError('EPIPE')), 'EPIPE');
    assert.equal(errorCode(systemError('EPIPE', true)), 'EPIPE');
    assert.equal(errorCode(new Error('no code')), undefined);
    assert.equal(errorCode(undefined), undefined);
    assert.equal(errorCode({ code: 42 }), undefined);
  });
});

describe('systemReason', () => {
  it('says what a common code means, with the code, on the error or its cause', () => {
    assert.equal(systemReason(systemError('ECONNREFUSED')), 'connection refused (ECONNREFUSED)');
    assert.equal(systemReason(systemError('ENOTFOUND', true)), 'host name not found (ENOTFOUND)');
    assert.equal(systemReason(systemError('EWEIRD')), 'EWEIRD while talking (EWEIRD)');
  });

  it("says a transport's own timeout as no answer, within the answer timeout when it is known", () => {
    assert.equal(
      systemReason(systemError('UND_ERR_HEADERS_TIMEOUT'), 30_000),
      'no answer within 30 s',
    );
    assert.equal(
      systemReason(systemError('UND_ERR_BODY_TIMEOUT', true)),
      'no answer in time (UND_ERR_BODY_TIMEOUT)',
    );
  });

  it('says an error without a code in its own words, sanitised', () => {
    assert.equal(systemReason(new Error('line one\nline two')), 'line one line two');
    assert.equal(systemReason('plain'), 'plain');
  });
});
