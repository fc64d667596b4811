import * as assert from 'node:assert/strict';
import { escapeControls, registerSecret, serverText } from '../../../../core/errors/serverText';
import { SECRET_TOKEN } from '../../helpers';

describe('server text is data', function () {
  this.timeout(30_000);
  it('one function makes it one line, without controls or bidi overrides, capped, secrets redacted', () => {
    registerSecret(SECRET_TOKEN);
    assert.equal(serverText('a\nb\r\n\tc\u0000d\u0085e'), 'a b c d e');
    assert.equal(serverText('evil\u202Egnp.exe\u2066x\u2069\u200b'), 'evilgnp.exex');
    assert.equal(serverText('x'.repeat(300), 10), `${'x'.repeat(9)}…`);
    assert.equal(
      serverText(`token ${SECRET_TOKEN.slice(0, 5)}\u200b${SECRET_TOKEN.slice(5)} echoed`),
      'token [redacted] echoed',
      'a secret split by an invisible character is still found',
    );
    assert.equal(serverText(`${' '.repeat(5000)}${SECRET_TOKEN}`, 20), '[redacted]');
    assert.equal(serverText('Authorization: Bearer abc.def'), 'Authorization: Bearer [redacted]');
    assert.equal(serverText({ an: 'object' }), '');
  });

  it('a lab’s reason "token expired" stays readable; a credential after Bearer, Basic or token is still redacted', () => {
    assert.equal(serverText('401: token expired'), '401: token expired');
    assert.equal(serverText('token revoked by admin'), 'token revoked by admin');
    assert.equal(serverText('token a1b2c3d4'), 'token [redacted]');
    assert.equal(serverText('token averyveryverylongsecretvalue'), 'token [redacted]');
    assert.equal(serverText('Authorization: Bearer abc'), 'Authorization: Bearer [redacted]');
    assert.equal(serverText('Basic dXNlcjpwYXNz'), 'Basic [redacted]');
  });

  it('escapeControls keeps data whole but writes each control a terminal acts on as its JSON escape', () => {
    const text = 'a\u001b[2Jb\u0007c\u0000d\u007fe\u0085f\u009bg\th\r\ni  j';
    assert.equal(
      escapeControls(text),
      'a\\u001b[2Jb\\u0007c\\u0000d\\u007fe\\u0085f\\u009bg\th\r\ni  j',
    );
    const json = escapeControls(JSON.stringify({ title: text }));
    assert.doesNotMatch(json, /[\u0000-\u001f\u007f-\u009f]/);
    assert.deepEqual(
      JSON.parse(json),
      { title: text },
      'in JSON text the escape is the same value',
    );
  });
});
