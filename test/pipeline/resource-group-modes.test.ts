/** GitLab's resource group process modes: which jobs are upcoming, in which order, and who takes a free resource. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isResourceGroupProcessMode, pipelineOrder, RESOURCE_GROUP_PROCESS_MODES, resourceTaker, upcomingStatuses } from '../../src/pipeline/index.ts';

describe('resource group process modes', () => {
  it("knows GitLab's four modes, unordered first (the default)", () => {
    assert.deepEqual([...RESOURCE_GROUP_PROCESS_MODES], ['unordered', 'oldest_first', 'newest_first', 'newest_ready_first']);
    assert.equal(isResourceGroupProcessMode('newest_ready_first'), true);
    assert.equal(isResourceGroupProcessMode('fastest_first'), false);
  });

  it('counts the jobs yet to be enqueued as upcoming only under oldest_first and newest_first', () => {
    assert.deepEqual(upcomingStatuses('unordered'), ['waiting_for_resource']);
    assert.deepEqual(upcomingStatuses('newest_ready_first'), ['waiting_for_resource']);
    for (const mode of ['oldest_first', 'newest_first'] as const) assert.deepEqual(upcomingStatuses(mode), ['created', 'scheduled', 'waiting_for_resource']);
    assert.deepEqual(RESOURCE_GROUP_PROCESS_MODES.map(pipelineOrder), ['none', 'asc', 'desc', 'desc']);
  });

  it('gives the resource to the first upcoming job only when it waits', () => {
    assert.deepEqual(resourceTaker({ id: 1, status: 'waiting_for_resource' }), { id: 1, status: 'waiting_for_resource' });
    assert.equal(resourceTaker({ id: 1, status: 'created' }), undefined);
    assert.equal(resourceTaker({ id: 1, status: 'scheduled' }), undefined);
    assert.equal(resourceTaker(undefined), undefined);
  });
});
