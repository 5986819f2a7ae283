/** Running a generated script in the job's environment, its output into the trace. */
import type { JobContext } from './context.ts';
import { goBool } from './go-values.ts';
import type { ScriptContext } from './script.ts';
import { variableValue, type BuildVariable } from './variables.ts';

export async function runScript(context: JobContext, stage: string, script: string, signal: AbortSignal, kind: 'user' | 'helper' = 'user'): Promise<number> {
  const { trace } = context;
  try {
    const { exitCode } = await context.environment.run({ stage, kind, shell: context.settings.shell, script, onOutput: (chunk) => trace.write(chunk), signal });
    return exitCode;
  } finally {
    trace.flush();
  }
}

export function scriptContext(context: JobContext, variables: BuildVariable[] = context.variables): ScriptContext {
  // Go's ParseBool, as gitlab-runner reads it (`1`, `TRUE`... too).
  const debugTrace = goBool(variableValue(variables, 'CI_DEBUG_TRACE')) === true && !context.settings.debugTraceDisabled;
  return { shell: context.settings.shell, variables, projectDir: context.environment.info.projectDir, debugTrace };
}
