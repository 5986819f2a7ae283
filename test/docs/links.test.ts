import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { flagsOf, headingAnchors, isExternal, markdownLinks, resolveLink, shownCommands, subcommandsOf, type ShownCommand } from './markdown-checks.ts';
import { scriptArgs } from '../helpers/script-args.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCUMENTS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

const read = (file: string) => readFileSync(file, 'utf8');

/** Every relative link of `file` that does not resolve: a missing file, or an anchor no heading makes. */
function brokenLinks(file: string, text: string, readTarget: (file: string) => string | null): string[] {
  const broken: string[] = [];
  for (const link of markdownLinks(text)) {
    if (isExternal(link.target)) continue;
    const { file: target, anchor } = resolveLink(file, link.target);
    const where = `${path.relative(ROOT, file)}:${link.line}: ${link.target}`;
    const content = readTarget(target);
    if (content === null) broken.push(`${where} (no such file)`);
    else if (anchor !== null && !headingAnchors(content).has(anchor)) broken.push(`${where} (no heading makes #${anchor})`);
  }
  return broken;
}

function readIfFile(file: string): string | null {
  if (!existsSync(file)) return null;
  // A link to a directory resolves on GitHub too (its listing); only files have anchors.
  return statSync(file).isDirectory() ? '' : read(file);
}

/** `--help` of the CLIs, run from the sources (as `bin/*` runs them once built). */
async function help(bin: 'coordinator' | 'runner', subcommand: string | null): Promise<string> {
  const args = [...scriptArgs(path.join(ROOT, 'src/cli', `${bin}.ts`)), ...(subcommand ? [subcommand] : []), '--help'];
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, env: { ...process.env, GANTRY_LOG_LEVEL: 'warn' } });
  return stdout;
}

/** The flags of each shown command that its `--help` does not list. */
function unknownFlags(commands: ShownCommand[], helpOf: (command: ShownCommand) => string): string[] {
  const unknown: string[] = [];
  for (const command of commands) {
    const listed = flagsOf(helpOf(command));
    for (const flag of command.flags) {
      if (!listed.has(flag)) unknown.push(`line ${command.line}: ${flag} is not in \`${command.bin}${command.subcommand ? ` ${command.subcommand}` : ''} --help\` (${command.text})`);
    }
  }
  return unknown;
}

describe('the documents (README.md and docs/)', () => {
  it('link only to files that exist and to anchors their headings make', () => {
    const broken = DOCUMENTS.flatMap((name) => brokenLinks(path.join(ROOT, name), read(path.join(ROOT, name)), readIfFile));
    assert.deepEqual(broken, []);
  });

  it('refer to nothing outside the repository', () => {
    const outside = DOCUMENTS.flatMap((name) =>
      read(path.join(ROOT, name))
        .split('\n')
        .flatMap((line, index) => (/\.\.\/shared|ARCHITECTURE\.md|\bspec 0\d|reference §/.test(line) ? [`${name}:${index + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(outside, []);
  });

  it('show only flags that the commands list in --help', async () => {
    const helps = new Map<string, string>();
    const subcommands = new Map<string, Set<string>>();
    for (const bin of ['coordinator', 'runner'] as const) {
      const top = await help(bin, null);
      helps.set(bin, top);
      subcommands.set(bin, subcommandsOf(bin, top));
      assert.ok(subcommands.get(bin)!.size >= 2, `${bin} --help lists its commands:\n${top}`);
    }
    const commands = DOCUMENTS.flatMap((name) => shownCommands(read(path.join(ROOT, name)), subcommands).map((command) => ({ ...command, text: `${name}: ${command.text}` })));
    for (const command of commands) {
      const key = `${command.bin} ${command.subcommand ?? ''}`.trim();
      if (!helps.has(key)) helps.set(key, await help(command.bin, command.subcommand));
    }
    assert.ok(commands.filter((command) => command.flags.length > 0).length >= 20, 'the documents show commands with flags');
    assert.deepEqual(unknownFlags(commands, (command) => helps.get(`${command.bin} ${command.subcommand ?? ''}`.trim())!), []);
  });
});

describe('the document checks themselves', () => {
  const subcommands = new Map([
    ['coordinator', new Set(['serve', 'start'])],
    ['runner', new Set(['register', 'run', 'lint'])],
  ]);
  const files = new Map([
    ['/d/README.md', '# Gantry\n\n## A ten-minute tour\n\n## A ten-minute tour\n'],
    ['/d/docs/api.md', '# The API\n\n## Errors by cause\n\n### `runner lint` and *more*: 2.0\n'],
  ]);
  const readTarget = (file: string) => files.get(file) ?? null;

  it('makes anchors as GitHub does', () => {
    assert.deepEqual([...headingAnchors(files.get('/d/docs/api.md')!)], ['the-api', 'errors-by-cause', 'runner-lint-and-more-20']);
    assert.deepEqual([...headingAnchors(files.get('/d/README.md')!)], ['gantry', 'a-ten-minute-tour', 'a-ten-minute-tour-1']);
  });

  it('finds a link to a missing file, a missing anchor and a missing heading of the same file', () => {
    const text = [
      'See [errors](docs/api.md#errors-by-cause), [the tour](#a-ten-minute-tour-1) and [GitLab](https://gitlab.com/x.md).',
      'Broken: [gone](docs/gone.md), [anchor](docs/api.md#rate-limits), [here](#no-such-heading).',
      '```',
      '[in code](docs/ignored.md)',
      '```',
    ].join('\n');
    assert.deepEqual(brokenLinks('/d/README.md', text, readTarget).map((problem) => problem.replace(/^.*?: /, '')), [
      'docs/gone.md (no such file)',
      'docs/api.md#rate-limits (no heading makes #rate-limits)',
      '#no-such-heading (no heading makes #no-such-heading)',
    ]);
  });

  it('finds a made-up flag in a code block, a continued line and a code span, and ignores gitlab-runner', () => {
    const text = [
      '```sh',
      'bin/coordinator serve --port 8080 --made-up-flag',
      'npx runner register --url U \\',
      '  --registration-token T --bogus',
      'gitlab-runner register --non-interactive --description x',
      'runner --version',
      '```',
      'Run `runner lint .gitlab-ci.yml --ref main --nope`, or `npm start -- --port 0 --colour`.',
    ].join('\n');
    const helpOf = (command: ShownCommand): string =>
      ({ 'coordinator serve': '--port --host', 'coordinator start': '--port', 'runner register': '--url --registration-token', 'runner lint': '--ref --json', runner: '--version --help' })[
        `${command.bin} ${command.subcommand ?? ''}`.trim()
      ] ?? '';
    const commands = shownCommands(text, subcommands);
    assert.deepEqual(commands.map((command) => [command.bin, command.subcommand, command.flags]), [
      ['coordinator', 'serve', ['--port', '--made-up-flag']],
      ['runner', 'register', ['--url', '--registration-token', '--bogus']],
      ['runner', null, ['--version']],
      ['runner', 'lint', ['--ref', '--nope']],
      ['coordinator', 'start', ['--port', '--colour']],
    ]);
    assert.deepEqual(unknownFlags(commands, helpOf).map((problem) => problem.split(' is not')[0]), ['line 2: --made-up-flag', 'line 3: --bogus', 'line 8: --nope', 'line 8: --colour']);
  });
});
