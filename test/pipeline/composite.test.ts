/** Status composition (§5.1, §5.3) and the pipeline state machine (§5.4). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  compositeOfSymbols,
  compositeStatus,
  compositeSymbolOf,
  nextPipelineStatus,
  pipelineHasWarnings,
  summarizePipeline,
  type CompositeSymbol,
  type JobStatus,
  type PipelineStatus,
} from '../../src/pipeline/index.ts';
import { pipelineOf } from './scenario.ts';

describe('composite symbols', () => {
  it('maps allowed failures to success_with_warnings and optional manual jobs to ignored', () => {
    assert.equal(compositeSymbolOf({ status: 'failed', allowFailure: true }), 'success_with_warnings');
    assert.equal(compositeSymbolOf({ status: 'canceled', allowFailure: true }), 'success_with_warnings');
    assert.equal(compositeSymbolOf({ status: 'manual', allowFailure: true }), 'ignored');
    assert.equal(compositeSymbolOf({ status: 'manual', allowFailure: false }), 'manual');
    assert.equal(compositeSymbolOf({ status: 'failed', allowFailure: false }), 'failed');
    assert.equal(compositeSymbolOf({ status: 'success', allowFailure: true }), 'success');
  });
});

describe('composite status rules (first match wins)', () => {
  const table: [string, CompositeSymbol[], JobStatus | null][] = [
    ['1 empty', [], null],
    ['3 all skipped', ['skipped'], 'skipped'],
    ['3 skipped and ignored', ['skipped', 'ignored'], 'skipped'],
    ['3 only optional manual jobs', ['ignored'], 'skipped'],
    ['4 success', ['success'], 'success'],
    ['4 success with skipped', ['success', 'skipped'], 'success'],
    ['4 success plus allowed failure', ['success', 'success_with_warnings'], 'success'],
    ['4 only allowed failures', ['success_with_warnings'], 'success'],
    ['4 success and ignored', ['success', 'ignored'], 'success'],
    ['5 created', ['created'], 'created'],
    ['5 created with warnings and ignored', ['created', 'success_with_warnings', 'ignored'], 'created'],
    ['7 success and canceled', ['success', 'canceled'], 'canceled'],
    ['7 canceled and skipped', ['canceled', 'skipped'], 'canceled'],
    ['8 pending', ['pending'], 'pending'],
    ['8 pending and created', ['pending', 'created', 'skipped'], 'pending'],
    ['9 running', ['running'], 'running'],
    ['9 success and pending', ['success', 'pending'], 'running'],
    ['9 failed and running', ['failed', 'running'], 'running'],
    ['9 running beats manual', ['running', 'manual'], 'running'],
    ['10 waiting for resource', ['waiting_for_resource'], 'waiting_for_resource'],
    ['10 success and waiting for resource', ['success', 'waiting_for_resource', 'created'], 'waiting_for_resource'],
    ['9 pending beats waiting for resource', ['pending', 'waiting_for_resource'], 'running'],
    ['10 waiting for resource beats manual and scheduled', ['waiting_for_resource', 'manual', 'scheduled', 'failed'], 'waiting_for_resource'],
    ['11 manual', ['manual'], 'manual'],
    ['11 failed and blocking manual', ['failed', 'manual'], 'manual'],
    ['11 manual before scheduled', ['manual', 'scheduled'], 'manual'],
    ['12 scheduled', ['success', 'scheduled'], 'scheduled'],
    ['12 scheduled before created', ['scheduled', 'created'], 'scheduled'],
    ['14 success and created (between stages)', ['success', 'created'], 'running'],
    ['14 failed and created (transient)', ['failed', 'created'], 'running'],
    ['16 failed', ['failed'], 'failed'],
    ['16 failed and canceled', ['failed', 'canceled'], 'failed'],
    ['16 failed and success', ['failed', 'success'], 'failed'],
  ];
  for (const [rule, symbols, expected] of table) {
    it(`rule ${rule}: {${symbols.join(', ')}} → ${String(expected)}`, () => {
      assert.equal(compositeOfSymbols(symbols), expected);
    });
  }

  it('rule 2 (dag): any skipped or ignored need gives skipped', () => {
    assert.equal(compositeOfSymbols(['success', 'skipped'], { dag: true }), 'skipped');
    assert.equal(compositeOfSymbols(['success', 'ignored'], { dag: true }), 'skipped');
    assert.equal(compositeOfSymbols(['failed', 'skipped'], { dag: true }), 'skipped');
    assert.equal(compositeOfSymbols(['success', 'skipped']), 'success');
    assert.equal(compositeOfSymbols(['success', 'success_with_warnings'], { dag: true }), 'success');
    assert.equal(compositeOfSymbols(['failed', 'running'], { dag: true }), 'running');
  });

  it('composes jobs, counting allow_failure', () => {
    assert.equal(
      compositeStatus([
        { status: 'success', allowFailure: false },
        { status: 'failed', allowFailure: true },
        { status: 'manual', allowFailure: true },
      ]),
      'success',
    );
    assert.equal(compositeStatus([]), null);
  });
});

describe('pipeline status (§5.4)', () => {
  it('a created composite or no jobs at all leave the status as it is', () => {
    assert.equal(nextPipelineStatus('created', null), 'created');
    assert.equal(nextPipelineStatus('created', 'created'), 'created');
    assert.equal(nextPipelineStatus('running', 'created'), 'running');
  });

  it('enqueue goes to pending, but to running from a finished or running pipeline', () => {
    const cases: [PipelineStatus, PipelineStatus][] = [
      ['created', 'pending'],
      ['pending', 'pending'],
      ['skipped', 'pending'],
      ['manual', 'pending'],
      ['scheduled', 'pending'],
      ['success', 'running'],
      ['failed', 'running'],
      ['canceled', 'running'],
      ['running', 'running'],
    ];
    for (const [from, expected] of cases) assert.equal(nextPipelineStatus(from, 'pending'), expected, from);
  });

  it('other composites are taken as they are', () => {
    for (const composite of ['running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'] as const) {
      assert.equal(nextPipelineStatus('pending', composite), composite);
      assert.equal(nextPipelineStatus('success', composite), composite);
    }
  });

  it('summarizes stages (same composition) and warnings over the latest jobs only', () => {
    const { jobs } = pipelineOf(['build', 'test'], [
      { name: 'compile', stage: 'build' },
      { name: 'flaky', stage: 'build', allowFailure: true },
      { name: 'unit', stage: 'test' },
      { name: 'unit', stage: 'test' },
    ]);
    const statuses: JobStatus[] = ['success', 'failed', 'failed', 'running'];
    const current = jobs.map((job, index) => ({ ...job, status: statuses[index], retried: index === 2 }));
    const summary = summarizePipeline(current, 'running');
    assert.equal(summary.status, 'running');
    assert.equal(summary.hasWarnings, true);
    assert.equal(pipelineHasWarnings(current), true);
    assert.deepEqual(summary.stages, [
      { stageIdx: 0, name: 'build', status: 'success', hasWarnings: true },
      { stageIdx: 1, name: 'test', status: 'running', hasWarnings: false },
    ]);
  });
});
