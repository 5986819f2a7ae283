import type { CoordinatorContext } from './context.ts';
import { TriggersService } from './services/ci/triggers.ts';
import { GroupVariablesService, InstanceVariablesService, ProjectVariablesService } from './services/ci/variables.ts';
import type { EnvironmentStopAction } from './services/ci/environment-stop.ts';
import { EnvironmentsService } from './services/ci/environments.ts';
import { PipelineSchedulesService } from './services/ci/pipeline-schedules.ts';
import { RefWriteAccess } from './services/repository/ref-write-access.ts';

/** The CI settings area's services (project, group and instance variables, triggers, pipeline schedules, environments), each with its narrow dependencies. */
export function buildCiSettingsServices(context: CoordinatorContext, stopAction: EnvironmentStopAction) {
  const { stores, lookup, permissions } = context;
  const refs = new RefWriteAccess({ branchRules: context.protectedBranches, tagRules: context.protectedTags, repositories: context.repositories });
  return {
    projectVariables: new ProjectVariablesService({ variables: stores.projectVariables, lookup, permissions }),
    groupVariables: new GroupVariablesService({ variables: stores.groupVariables, lookup, permissions }),
    instanceVariables: new InstanceVariablesService({ variables: stores.instanceVariables, permissions }),
    triggers: new TriggersService({ triggers: stores.triggers, users: stores.users, lookup, permissions }),
    pipelineSchedules: new PipelineSchedulesService({ schedules: stores.schedules, users: stores.users, pipelines: stores.pipelines, namespaces: stores.namespaces, lookup, permissions, refs }),
    environments: new EnvironmentsService({ environments: stores.environments, deployments: stores.deployments, users: stores.users, lookup, permissions, stopAction }),
  };
}
