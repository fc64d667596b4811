import * as assert from 'node:assert/strict';
import { isLoopbackHost, parseBaseUrl } from '../../../../core/connection/baseUrl';
import { LabApiError } from '../../../../core/errors/errors';

describe('parseBaseUrl', () => {
  it('accepts an https address with or without /api/v1 and trailing slashes', () => {
    for (const input of [
      'https://lab.example.com',
      'https://lab.example.com/',
      'https://lab.example.com/api/v1',
      'https://lab.example.com/api/v1/',
      ' https://lab.example.com/API/v1// ',
    ]) {
      const url = parseBaseUrl(input);
      assert.equal(url.origin, 'https://lab.example.com', input);
      assert.equal(url.baseUrl, 'https://lab.example.com', input);
      assert.equal(url.basePath, '', input);
      assert.equal(url.host, 'lab.example.com');
    }
  });

  it('keeps a path prefix in front of /api/v1', () => {
    const url = parseBaseUrl('https://lab.example.com:8443/lims/api/v1');
    assert.equal(url.origin, 'https://lab.example.com:8443');
    assert.equal(url.basePath, '/lims');
    assert.equal(url.host, 'lab.example.com:8443');
  });

  it('allows plain http only for loopback hosts', () => {
    assert.equal(parseBaseUrl('http://127.0.0.1:8787').origin, 'http://127.0.0.1:8787');
    assert.equal(parseBaseUrl('http://localhost:1234/api/v1').basePath, '');
    assert.equal(parseBaseUrl('http://[::1]:99').origin, 'http://[::1]:99');
    assert.equal(parseBaseUrl('http://127.1.2.3').origin, 'http://127.1.2.3');
    for (const input of [
      'http://lab.example.com',
      'http://10.0.0.5',
      'http://127.0.0.1.evil.com',
      'http://localhost.evil.com',
      'http://128.0.0.1',
    ]) {
      assert.throws(
        () => parseBaseUrl(input),
        (error: LabApiError) => error.code === 'invalidInput' && /https/.test(error.message),
        input,
      );
    }
  });

  it('rejects what is not a usable address, with a clear sentence', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /Enter the address/],
      ['lab.example.com', /not a web address/],
      ['ftp://lab.example.com', /must start with https/],
      ['https://user:pw@lab.example.com', /user name or password/],
      ['https://lab.example.com/?token=x', /query/],
      ['https://lab.example.com/#x', /fragment/],
    ];
    for (const [input, message] of cases) {
      assert.throws(
        () => parseBaseUrl(input),
        (error: LabApiError) => error instanceof LabApiError && message.test(error.message),
        input,
      );
    }
  });

  it('recognises loopback hosts exactly', () => {
    assert.ok(isLoopbackHost('127.0.0.1'));
    assert.ok(isLoopbackHost('127.255.255.254'));
    assert.ok(isLoopbackHost('LOCALHOST'));
    assert.ok(isLoopbackHost('[::1]'));
    assert.ok(!isLoopbackHost('127.0.0.256'));
    assert.ok(!isLoopbackHost('localhost.example.com'));
    assert.ok(!isLoopbackHost('0.0.0.0'));
  });
});
