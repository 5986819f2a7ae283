/**
 * The pieces behind the monitoring endpoints, without HTTP: GitLab's probe semantics of
 * HealthChecks (a check failing, throwing, hanging; one run in flight per check) and the
 * parsing of the allow-list.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MonitoringAllowList } from '../../../src/coordinator/http/monitoring/allow-list.ts';
import { HealthChecks, type CheckResult, type HealthCheck } from '../../../src/coordinator/services/monitoring/health-checks.ts';

function check(name: string, run: HealthCheck['run'], timeoutMs = 1_000): HealthCheck {
  return { name, humanName: name.replace(/_check$/, ''), timeoutMs, run };
}

const passing = (name: string) => check(name, async () => [{ success: true }]);

describe('HealthChecks', () => {
  it('liveness runs no check; readiness runs the instance checks, and with all the service checks too', async () => {
    const ran: string[] = [];
    const tracked = (name: string) => check(name, async () => {
      ran.push(name);
      return [{ success: true }];
    });
    const health = new HealthChecks({ instance: [tracked('instance_check')], services: [tracked('db_check'), tracked('git_check')] });
    assert.deepEqual(await health.liveness(), { success: true, results: [] });
    assert.deepEqual(ran, []);
    const plain = await health.readiness(false);
    assert.deepEqual(plain.results.map((entry) => entry.name), ['instance_check']);
    const all = await health.readiness(true);
    assert.equal(all.success, true);
    assert.deepEqual(all.results.map((entry) => entry.name), ['instance_check', 'db_check', 'git_check']);
    assert.deepEqual(ran, ['instance_check', 'instance_check', 'db_check', 'git_check']);
  });

  it('fails the probe when one check fails, and words a thrown error as "<Name> check failed: …"', async () => {
    const health = new HealthChecks({
      instance: [],
      services: [
        passing('db_check'),
        check('data_directory_check', async () => [{ success: false, message: 'cannot write to data directory (EROFS)' }]),
        check('git_check', async () => {
          throw Object.assign(new Error('spawn git ENOENT'), { code: 'ENOENT' });
        }),
      ],
    });
    const report = await health.readiness(true);
    assert.equal(report.success, false);
    assert.deepEqual(report.results, [
      { name: 'db_check', results: [{ success: true }] },
      { name: 'data_directory_check', results: [{ success: false, message: 'cannot write to data directory (EROFS)' }] },
      { name: 'git_check', results: [{ success: false, message: 'git check failed: spawn git ENOENT' }] },
    ]);
  });

  it('answers "<Name> check timed out" for a hung check, aborts its signal, and starts no second run while it hangs', async () => {
    let runs = 0;
    let aborted = 0;
    let release: ((results: CheckResult[]) => void) | undefined;
    const hung = check('db_check', (signal) => {
      runs += 1;
      if (runs > 1) return Promise.resolve([{ success: true }]);
      signal.addEventListener('abort', () => (aborted += 1));
      return new Promise<CheckResult[]>((resolve) => (release = resolve));
    }, 20);
    const health = new HealthChecks({ instance: [], services: [hung] });
    const first = await health.readiness(true);
    assert.deepEqual(first, { success: false, results: [{ name: 'db_check', results: [{ success: false, message: 'db check timed out' }] }] });
    assert.equal(aborted, 1);
    const [second, third] = await Promise.all([health.readiness(true), health.readiness(true)]);
    assert.equal(second.success, false);
    assert.equal(third.success, false);
    assert.equal(runs, 1, 'probes arriving while the check hangs share its run');
    release!([{ success: true }]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(runs, 1);
    const recovered = await health.readiness(true);
    assert.equal(recovered.success, true);
    assert.equal(runs, 2, 'a run that ended is not reused');
  });
});

describe('MonitoringAllowList', () => {
  it('matches addresses and ranges of both families, IPv4 mapped into IPv6 too', () => {
    const list = MonitoringAllowList.parse(['127.0.0.0/8', '::1/128', '10.1.2.3', ' 2001:db8::/32 ']);
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '10.1.2.3', '::ffff:127.0.0.1', '::ffff:10.1.2.3', '2001:db8::5']) assert.equal(list.includes(address), true, address);
    for (const address of ['10.1.2.4', '128.0.0.1', '::2', '2001:db9::1', 'localhost', '']) assert.equal(list.includes(address), false, address);
  });

  it('an empty list admits nobody', () => {
    assert.equal(MonitoringAllowList.parse([]).includes('127.0.0.1'), false);
  });

  it('refuses an entry that is not an address or a CIDR range, naming it', () => {
    for (const entry of ['localhost', '10.0.0.0/33', '::1/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/x', '300.1.1.1']) {
      assert.throws(() => MonitoringAllowList.parse(['127.0.0.1', entry]), { message: `monitoring_ip_whitelist: ${JSON.stringify(entry)} is not an IP address or CIDR range` });
    }
  });
});
