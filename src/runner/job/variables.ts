/**
 * The job's variable list as gitlab-runner builds it (reference §8.3, §10.2): runner
 * variables around the payload's, expanded once against the unexpanded list (later entries
 * win, `raw` ones untouched), and the masked values that the trace must hide.
 */
import type { JobVariable } from '../../protocol/job-payload.ts';
import { FEATURE_FLAG_DEFAULTS } from './feature-flag-defaults.ts';
import type { ServerTls } from './server-tls.ts';

export interface BuildVariable {
  key: string;
  value: string;
  file?: boolean;
  masked?: boolean;
  raw?: boolean;
  public?: boolean;
}

export interface RunnerVariableContext {
  image: string | null;
  shortToken: string;
  /** `[[runners]] environment`: `KEY=VALUE` entries. */
  environment: readonly string[];
  buildsDir: string;
  projectDir: string;
  concurrentId: number;
  concurrentProjectId: number;
  jobStatus: 'running' | 'success' | 'failed' | 'canceled' | 'timedout';
  /** The job's timeout in seconds (CI_JOB_TIMEOUT). */
  jobTimeout: number;
  /** The runner's TLS files' contents, for the CI_SERVER_TLS_* file variables. */
  tls?: ServerTls;
  /** `[runners.feature_flags]`: exported in place of those flags' defaults. */
  featureFlags?: Readonly<Record<string, boolean>>;
  shared: boolean;
  version: string;
  revision: string;
  arch: string;
}

export function buildVariables(payload: readonly JobVariable[], context: RunnerVariableContext): BuildVariable[] {
  const list: BuildVariable[] = [];
  const add = (key: string, value: string): void => {
    list.push({ key, value, public: true });
  };
  for (const [name, on] of FEATURE_FLAG_DEFAULTS) add(name, String(context.featureFlags?.[name] ?? on));
  if (context.image) add('CI_JOB_IMAGE', context.image);
  add('CI_RUNNER_SHORT_TOKEN', context.shortToken);
  for (const entry of context.environment) {
    const at = entry.indexOf('=');
    if (at > 0) add(entry.slice(0, at), entry.slice(at + 1));
  }
  add('CI_BUILDS_DIR', context.buildsDir);
  add('CI_PROJECT_DIR', context.projectDir);
  add('CI_CONCURRENT_ID', String(context.concurrentId));
  add('CI_CONCURRENT_PROJECT_ID', String(context.concurrentProjectId));
  add('CI_SERVER', 'yes');
  add('CI_JOB_STATUS', context.jobStatus);
  add('CI_JOB_TIMEOUT', String(context.jobTimeout));
  if (context.tls?.ca) list.push({ key: 'CI_SERVER_TLS_CA_FILE', value: context.tls.ca, file: true, public: true });
  if (context.tls?.cert && context.tls.key) {
    list.push({ key: 'CI_SERVER_TLS_CERT_FILE', value: context.tls.cert, file: true, public: true }, { key: 'CI_SERVER_TLS_KEY_FILE', value: context.tls.key, file: true, public: false });
  }
  for (const variable of payload) {
    list.push({ key: variable.key, value: variable.value, file: variable.file === true, masked: variable.masked, raw: variable.raw === true, public: variable.public });
  }
  add(context.shared ? 'CI_SHARED_ENVIRONMENT' : 'CI_DISPOSABLE_ENVIRONMENT', 'true');
  add('CI_RUNNER_VERSION', context.version);
  add('CI_RUNNER_REVISION', context.revision);
  add('CI_RUNNER_EXECUTABLE_ARCH', context.arch);
  return expandAll(list);
}

/** The last value of `key` in the list (gitlab-runner `JobVariables.Get`), with its shell specials. */
function lookup(list: readonly BuildVariable[], key: string): string {
  if (key === '$') return '$';
  if (/^[*#@!?0-9]$/.test(key)) return `$${key}`;
  for (let index = list.length - 1; index >= 0; index--) if (list[index].key === key) return list[index].value;
  return '';
}

/** Go's os.Expand over the list: `$NAME`, `${NAME}`, `$$` → `$`; unknown names become empty. */
export function expandValue(value: string, list: readonly BuildVariable[]): string {
  let out = '';
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    if (char !== '$' || index + 1 >= value.length) {
      out += char;
      continue;
    }
    const next = value[index + 1];
    if (next === '{') {
      const close = value.indexOf('}', index + 2);
      if (close < 0 || close === index + 2) {
        // Bad syntax: os.Expand eats the characters.
        index = close < 0 ? value.length : close;
        continue;
      }
      out += lookup(list, value.slice(index + 2, close));
      index = close;
    } else if (/[*#$@!?\-0-9]/.test(next)) {
      out += lookup(list, next);
      index += 1;
    } else {
      const name = /^[A-Za-z0-9_]+/.exec(value.slice(index + 1))?.[0];
      if (!name) {
        out += char;
        continue;
      }
      out += lookup(list, name);
      index += name.length;
    }
  }
  return out;
}

function expandAll(list: BuildVariable[]): BuildVariable[] {
  return list.map((variable) => (variable.raw ? variable : { ...variable, value: expandValue(variable.value, list) }));
}

export function variableValue(list: readonly BuildVariable[], key: string): string | undefined {
  for (let index = list.length - 1; index >= 0; index--) if (list[index].key === key) return list[index].value;
  return undefined;
}

export function maskedValues(list: readonly BuildVariable[]): string[] {
  return list.filter((variable) => variable.masked && variable.value.length > 0).map((variable) => variable.value);
}

/**
 * A service's own variables (`services:variables`), each expanded against the public job
 * variables and the service's own, as gitlab-runner expands them for the service's container.
 */
export function expandServiceVariables(own: readonly { key: string; value: string }[], list: readonly BuildVariable[]): { key: string; value: string }[] {
  const visible = [...list.filter((variable) => variable.public !== false && !variable.file), ...own];
  return own.map(({ key, value }) => ({ key, value: expandValue(value, visible) }));
}

/** Variables a service container may see: public ones only (reference §8.5). */
export function serviceVariables(list: readonly BuildVariable[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const variable of list) if (variable.public !== false && !variable.file) out[variable.key] = variable.value;
  return out;
}
