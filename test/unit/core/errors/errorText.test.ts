import * as assert from 'node:assert/strict';
import { errorText } from '../../../../core/errors/errorText';
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
