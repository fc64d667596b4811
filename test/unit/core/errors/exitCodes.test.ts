import * as assert from 'node:assert/strict';
import { LabApiError, type LabErrorCode } from '../../../../core/errors/errors';
import { Exit, exitCodeOfFailure, worst } from '../../../../core/errors/exitCodes';

describe('the exit codes of a run over a folder (exitCodes), shared by lab-data and the lab-data tasks', () => {
  it("turns the core's failures into the documented codes: a refused token 3, a lab down 4, a bad request 2, anything else 1", () => {
    const failure = (code: LabErrorCode): LabApiError => new LabApiError(code, code);
    assert.equal(exitCodeOfFailure(failure('unauthorized')), Exit.auth);
    assert.equal(exitCodeOfFailure(failure('forbidden')), Exit.auth);
    assert.equal(exitCodeOfFailure(failure('badRequest')), Exit.usage);
    assert.equal(exitCodeOfFailure(failure('notFound')), Exit.mismatch);
    assert.equal(exitCodeOfFailure(failure('fileSystem')), Exit.mismatch);
    assert.equal(exitCodeOfFailure(failure('network')), Exit.network);
    assert.equal(exitCodeOfFailure(failure('server')), Exit.network);
    assert.equal(exitCodeOfFailure(new Error('disk full')), Exit.mismatch);
  });

  it('a run that meets several outcomes ends with the worst, a missing file below a lab that is down', () => {
    assert.equal(worst([]), Exit.ok);
    assert.equal(worst([Exit.ok, Exit.mismatch]), Exit.mismatch);
    assert.equal(worst([Exit.mismatch, Exit.network]), Exit.network);
    assert.equal(worst([Exit.network, Exit.auth, Exit.mismatch]), Exit.auth);
    assert.equal(worst([Exit.auth, Exit.usage]), Exit.usage);
  });
});
