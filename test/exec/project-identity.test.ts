import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { projectIdentity } from '../../src/exec/project-identity.ts';

describe("runner exec's project identity from the remote's URL", () => {
  const cases: Array<[string | null, string, { groups: string[]; path: string }]> = [
    ['git@gitlab.com:GCL/predefined-variables.git', '/src/x', { groups: ['GCL'], path: 'predefined-variables' }],
    ['ssh://git@gitlab.example.com:2222/group/sub/app.git', '/src/x', { groups: ['group', 'sub'], path: 'app' }],
    ['https://oauth2:secret@gitlab.com/group/app', '/src/x', { groups: ['group'], path: 'app' }],
    ['https://gitlab.com/Group.With/my%20app.git/', '/src/x', { groups: ['Group.With'], path: 'my-app' }],
    ['git@host:app.git', '/src/x', { groups: [], path: 'app' }],
    // Local repositories: only the working tree's name.
    ['/srv/git/shared.git', '/src/my tree', { groups: [], path: 'my-tree' }],
    ['file:///srv/git/shared.git', '/src/tree', { groups: [], path: 'tree' }],
    ['../sibling', '/src/tree', { groups: [], path: 'tree' }],
    [null, '/home/me/.dotfiles', { groups: [], path: 'dotfiles' }],
    [null, '/home/me/---', { groups: [], path: 'project' }],
    // A group that cannot be a path drops the groups.
    ['git@host:.../app.git', '/src/tree', { groups: [], path: 'app' }],
  ];
  for (const [url, root, expected] of cases) {
    it(`${url ?? 'no remote'} in ${root}`, () => {
      assert.deepEqual(projectIdentity(url, root), expected);
    });
  }

  it('never keeps more than GitLab nests (20 groups): the project alone then', () => {
    const deep = `git@host:${Array.from({ length: 21 }, (_, index) => `g${index}`).join('/')}/app.git`;
    assert.deepEqual(projectIdentity(deep, '/src/tree'), { groups: [], path: 'app' });
  });
});
