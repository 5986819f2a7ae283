import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { formatJunitSummaries, JUNIT_LIMITS, JunitScanner, readJunitReport } from '../../src/exec/junit-summary.ts';

const SUITE = `<?xml version="1.0"?>
<testsuites><testsuite name="s">
  <testcase classname="a" name="passes"/>
  <testcase classname="a" name="fails twice"><failure/><error/></testcase>
  <testcase classname="a" name="errors"><error message="e"/><skipped/></testcase>
  <testcase classname="b" name="skips"><skipped/></testcase>
  <testcase classname="b" name="output only"><system-out><failure>not a child of the testcase</failure></system-out></testcase>
</testsuite></testsuites>`;

describe('JUnit summary (runner exec)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-junit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  function reportFile(name: string, bytes: Buffer): string {
    const file = path.join(dir, name);
    writeFileSync(file, bytes);
    return file;
  }

  it("counts as GitLab's parser does: failure over error over skipped, direct children only", () => {
    const scanner = new JunitScanner();
    scanner.feed(SUITE);
    assert.deepEqual(scanner.counts, {
      total: 5, failed: 1, errored: 1, skipped: 1, truncated: false,
      failedTests: [{ name: 'fails twice', classname: 'a', status: 'failed' }, { name: 'errors', classname: 'a', status: 'error' }],
    });
  });

  it('gives the same answer however the text is cut into chunks', () => {
    const whole = new JunitScanner();
    whole.feed(SUITE);
    const byCharacter = new JunitScanner();
    for (const character of SUITE) byCharacter.feed(character);
    assert.deepEqual(byCharacter.counts, whole.counts);
  });

  it('reads every gzip member of a report (one per file), and expands no entity but the predefined ones', async () => {
    const doctype = '<!DOCTYPE x [<!ENTITY big "AAAAAAAAAA"><!ENTITY bigger "&big;&big;&big;">]>';
    const second = `${doctype}<testsuite><testcase name="&bigger; &lt;&#65;&#x42;&gt;"><failure/></testcase></testsuite>`;
    const file = reportFile('two.xml.gz', Buffer.concat([gzipSync(SUITE), gzipSync(second)]));
    const counts = await readJunitReport(file);
    assert.equal(counts.total, 6);
    assert.equal(counts.failedTests.at(-1)?.name, '&bigger; <AB>');
    assert.equal(counts.error, undefined);
  });

  it('stops at its limits with what it read, and says why', async () => {
    const deep = `<a>${'<b>'.repeat(JUNIT_LIMITS.depth + 1)}`;
    assert.match((await readJunitReport(reportFile('deep.gz', gzipSync(deep)))).error ?? '', /nested deeper than 256/);
    const endless = `<testsuite><testcase name="x"/><testcase name="${'y'.repeat(1024 * 1024)}`;
    const cut = await readJunitReport(reportFile('endless.gz', gzipSync(endless)));
    assert.equal(cut.total, 1);
    assert.match(cut.error ?? '', /unclosed|unexpected end/);
    const many = `<testsuite>${'<testcase name="t"/>'.repeat(Math.ceil(JUNIT_LIMITS.unpacked / 20) + 100)}</testsuite>`;
    const truncated = await readJunitReport(reportFile('many.gz', gzipSync(many)));
    assert.equal(truncated.truncated, true);
    assert.ok(truncated.total > 0 && truncated.total < Math.ceil(JUNIT_LIMITS.unpacked / 20) + 100, String(truncated.total));
    assert.equal((await readJunitReport(reportFile('plain.xml', Buffer.from(SUITE)))).error, 'not a gzip file');
    assert.match((await readJunitReport(reportFile('broken.gz', gzipSync('<testsuite></testcase>')))).error ?? '', /unexpected close tag/);
  });

  it('prints one line per job and the first failed tests, capped', () => {
    const failedTests = Array.from({ length: JUNIT_LIMITS.failedNames }, (_, index) => ({ name: `t${index}`, classname: 'c', status: 'failed' as const }));
    const text = formatJunitSummaries([
      { job: 'unit', jobId: 1, total: 20, failed: 12, errored: 0, skipped: 3, failedTests, truncated: false },
      { job: 'integration', jobId: 2, total: 0, failed: 0, errored: 0, skipped: 0, failedTests: [], truncated: true },
    ]);
    assert.match(text, /^ {2}unit {9}20 tests: 5 passed, 12 failed, 0 errored, 3 skipped$/m);
    assert.match(text, /^ {4}failed: c › t9$/m);
    assert.match(text, /^ {4}… and 2 more$/m);
    assert.match(text, /^ {2}integration {2}0 tests: .*\(report truncated\)$/m);
  });
});
