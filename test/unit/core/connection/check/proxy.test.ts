import * as assert from 'node:assert/strict';
import { proxyStep } from '../../../../../core/connection/check/proxy';

describe('Check Connection’s proxy step', () => {
  it('a lab on this machine goes direct, and says why', () => {
    const step = proxyStep(new URL('http://127.0.0.1:8080'), undefined, {
      noProxy: [],
      httpProxy: 'http://proxy.example:3128',
    });
    assert.equal(step.outcome, 'ok');
    assert.equal(step.summary, 'direct');
    assert.deepEqual(step.details, ['a lab on this machine is never reached through a proxy']);
  });

  it('a proxy is named with the setting that chose it; its password never shows', () => {
    const proxy = 'http://ann:s3cret@proxy.example:3128';
    const step = proxyStep(new URL('https://lab.example'), proxy, {
      noProxy: [],
      httpsProxy: proxy,
    });
    assert.equal(step.outcome, 'ok');
    assert.match(step.summary, /proxy\.example:3128/);
    assert.ok(!JSON.stringify(step).includes('s3cret'), JSON.stringify(step));
  });
});
