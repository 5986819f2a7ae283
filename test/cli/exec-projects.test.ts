/**
 * `runner exec --project PATH=DIR`: another working tree as a project of the local coordinator,
 * read by `include:project` (its working tree on its current branch, its tags and branches as
 * they are) and run by `trigger:project` (the downstream pipeline's jobs are the run's).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exec, git, statuses, workingTree, writeFiles, type JsonResult } from './exec-helpers.ts';

const TEMPLATE = (words: string) => `spec:\n  inputs:\n    greeting:\n      default: hello\n---\n.greet:\n  script: echo "$[[ inputs.greeting ]] ${words}"\n`;

describe('runner exec --project: other working trees as projects', () => {
  let templates: string;
  let app: string;

  before(() => {
    templates = workingTree({ 'ci/greet.yml': TEMPLATE('from the tag'), '.gitlab-ci.yml': 'downstream-job:\n  script: echo "downstream of $CI_PROJECT_PATH on $CI_COMMIT_REF_NAME"\n' });
    git(templates, 'tag', 'v1');
    git(templates, 'branch', 'stable');
    writeFiles(templates, { 'ci/greet.yml': TEMPLATE('from the branch') });
    git(templates, 'commit', '-qam', 'branch wording');
    // Not committed: the project's default branch holds it (not with --committed).
    writeFiles(templates, { 'ci/greet.yml': TEMPLATE('from the working tree') });
    app = workingTree({
      '.gitlab-ci.yml': [
        'include:',
        '  - project: acme/ci/templates',
        '    file: ci/greet.yml',
        '    inputs: { greeting: hi }',
        'current:',
        '  extends: .greet',
        'downstream:',
        '  trigger:',
        '    project: acme/ci/templates',
        '    strategy: depend',
        '',
      ].join('\n'),
    });
    git(app, 'remote', 'add', 'origin', 'git@gitlab.example.com:acme/app.git');
  });
  after(() => {
    rmSync(templates, { recursive: true, force: true });
    rmSync(app, { recursive: true, force: true });
  });

  it('includes from the working tree of the other project and runs the pipeline a trigger job starts there', async () => {
    const result = await exec(app, { project: [`acme/ci/templates=${templates}`], json: true });
    assert.equal(result.code, 0, result.stderr);
    const outcome = JSON.parse(result.stdout) as JsonResult;
    const upstreamOf = (name: string) => (outcome.jobs as Array<{ name: string; upstream?: string[] }>).find((job) => job.name === name)?.upstream;
    assert.deepEqual(statuses(outcome), { current: 'success', downstream: 'success', 'downstream-job': 'success' });
    assert.deepEqual(upstreamOf('downstream-job'), ['downstream']);
    assert.match(result.stderr, /^current +\| hi from the working tree$/m);
    assert.match(result.stderr, /^downstream › downstream-job +\| downstream of acme\/ci\/templates on main$/m);
  });

  it('reads its tags and branches as the other repository has them (a ref it lacks is GitLab\'s error), and with --committed its HEAD', async () => {
    const project = [`acme/ci/templates=${templates}`];
    // --committed runs the app's HEAD, whose CI file is the first: its include reads the other project's HEAD.
    const atHead = await exec(app, { project, committed: true, json: true });
    assert.equal(atHead.code, 0, atHead.stderr);
    assert.match(atHead.stderr, /^current +\| hi from the branch$/m);
    for (const ref of ['v1', 'stable']) {
      writeFiles(app, { '.gitlab-ci.yml': `include:\n  - project: acme/ci/templates\n    ref: ${ref}\n    file: ci/greet.yml\npinned:\n  extends: .greet\n` });
      const result = await exec(app, { project, json: true });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /^pinned +\| hello from the tag$/m, ref);
    }
    writeFiles(app, { '.gitlab-ci.yml': 'include:\n  - project: acme/ci/templates\n    ref: nowhere\n    file: ci/greet.yml\npinned:\n  extends: .greet\n' });
    const unknownRef = await exec(app, { project, list: true });
    assert.equal(unknownRef.code, 1);
    assert.match(unknownRef.stdout, /^\.gitlab-ci\.yml:1: error: Project `acme\/ci\/templates` reference `nowhere` does not exist!$/m);
  });

  it('takes the projects of .gantry/projects.yml (directories from the top of the tree), a --project of the same path over them', async () => {
    writeFiles(app, { '.gitlab-ci.yml': 'include:\n  - project: acme/ci/templates\n    ref: v1\n    file: ci/greet.yml\npinned:\n  extends: .greet\n' });
    writeFiles(app, { '.gantry/projects.yml': `acme/ci/templates: ${path.relative(app, templates)}\n` });
    try {
      const fromFile = await exec(app, { json: true });
      assert.equal(fromFile.code, 0, fromFile.stderr);
      assert.match(fromFile.stderr, /^pinned +\| hello from the tag$/m);
      const overridden = await exec(app, { project: [`acme/ci/templates=${app}`], list: true });
      assert.equal(overridden.code, 1, 'the flag names a tree without that tag');
      assert.match(overridden.stdout, /reference `v1` does not exist!/);
      writeFiles(app, { '.gantry/projects.yml': 'acme: ../templates\n' });
      const refused = await exec(app, { list: true });
      assert.equal(refused.stderr, 'runner exec: .gantry/projects.yml: acme: not a project path (a group and a project at least, as group/templates)\n');
    } finally {
      rmSync(path.join(app, '.gantry', 'projects.yml'), { force: true });
    }
  });

  it('refuses a malformed flag, a directory that is not a repository and a path already taken, in one line', async () => {
    const refused = [
      [['acme=../x'], 2, '--project acme: not a project path (a group and a project at least, as group/templates)'],
      [['acme/x'], 2, '--project expects PATH=DIR, got "acme/x"'],
      [[`acme/x=${app}/nowhere`], 1, `--project acme/x: not a git working tree: ${app}/nowhere`],
      [[`acme/app=${templates}`], 1, '--project acme/app: the local coordinator refused the path (taken, or a name it reserves)'],
    ] as const;
    for (const [project, code, message] of refused) {
      const result = await exec(app, { project: [...project], list: true });
      assert.equal(result.code, code, result.stderr);
      assert.equal(result.stderr, `runner exec: ${message}\n`);
    }
  });
});
