import * as assert from 'node:assert/strict';
import { isUntrustedChainCode, tlsProblemOf } from '../../../../core/connection/tlsProblems';

describe('TLS problems', () => {
  it("names what a verification code says is wrong, and 'other' for any code it does not know", () => {
    assert.equal(tlsProblemOf('DEPTH_ZERO_SELF_SIGNED_CERT'), 'selfSigned');
    assert.equal(tlsProblemOf('SELF_SIGNED_CERT_IN_CHAIN'), 'unknownRoot');
    for (const code of [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'UNABLE_TO_GET_ISSUER_CERT',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    ]) {
      assert.equal(tlsProblemOf(code), 'unknownIssuer', code);
    }
    assert.equal(tlsProblemOf('CERT_HAS_EXPIRED'), 'expired');
    assert.equal(tlsProblemOf('CERT_NOT_YET_VALID'), 'expired');
    assert.equal(tlsProblemOf('ERR_TLS_CERT_ALTNAME_INVALID'), 'wrongHost');
    assert.equal(tlsProblemOf('HOSTNAME_MISMATCH'), 'wrongHost');
    assert.equal(tlsProblemOf('ECONNRESET'), 'other');
    // A code is data from the network stack: a name on Object's prototype is just another unknown code.
    assert.equal(tlsProblemOf('toString'), 'other');
    assert.equal(tlsProblemOf('__proto__'), 'other');
  });

  it('tells a chain refused for who vouched for it from one refused for its dates or name', () => {
    for (const code of [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'CERT_UNTRUSTED',
    ]) {
      assert.equal(isUntrustedChainCode(code), true, code);
    }
    for (const code of ['CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ECONNRESET']) {
      assert.equal(isUntrustedChainCode(code), false, code);
    }
  });
});
