import * as assert from 'node:assert/strict';
import { localeFormat, usableLocale } from '../../../../core/derived/localeFormat';

describe('dates and numbers in a display language', () => {
  const day = new Date('2026-11-20T00:00:00Z');

  it('writes numbers as de, fr and en do', () => {
    assert.equal(localeFormat('de').number(1234.5), '1.234,5');
    assert.equal(localeFormat('fr').number(1234.5).replace(/\s/g, ' '), '1 234,5');
    assert.equal(localeFormat('en').number(1234.5), '1,234.5');
  });

  it('writes UTC days and months as de, fr and en do', () => {
    assert.equal(localeFormat('de').utcDay(day), '20.11.2026');
    assert.equal(localeFormat('fr').utcDay(day), '20 nov. 2026');
    assert.equal(localeFormat('en').utcDay(day), 'Nov 20, 2026');
    assert.equal(localeFormat('de').utcMonth(day), 'Nov. 2026');
    assert.equal(localeFormat('fr').utcMonth(day), 'nov. 2026');
    assert.equal(localeFormat('en').utcMonth(day), 'Nov 2026');
  });

  it('writes local dates and times in the locale (24-hour clock in de, AM/PM in en-US)', () => {
    const at = new Date(2026, 10, 20, 13, 50);
    assert.match(localeFormat('de').dateTime(at), /^20\.11\.2026, 13:50$/);
    assert.match(localeFormat('en-US').dateTime(at), /^Nov 20, 2026, 1:50\sPM$/);
    assert.equal(localeFormat('de').date(at), '20.11.2026');
    assert.match(localeFormat('de').time(at), /^13:50:00$/);
  });

  it('uses VS Code language ids as they come (zh-cn, pt-br, the pseudo-locale) and falls back on unreadable ones', () => {
    assert.equal(usableLocale('zh-cn'), 'zh-cn');
    assert.equal(usableLocale('pt-br'), 'pt-br');
    assert.equal(localeFormat('pt-br').number(1234.5), '1.234,5');
    assert.equal(usableLocale('qps-ploc'), 'qps-ploc');
    assert.equal(usableLocale('de-!!'), 'de', 'the language part when the rest is unreadable');
    assert.equal(usableLocale('!!'), undefined);
    assert.equal(usableLocale(undefined), undefined);
  });
});
