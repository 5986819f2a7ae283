/** Runtime schema of the job payload, for a runner that wants to check what it received. */
import { Type, type Static } from '#deps/typebox';

const JobVariableSchema = Type.Object({
  key: Type.String(),
  value: Type.String(),
  public: Type.Boolean(),
  masked: Type.Boolean(),
  file: Type.Optional(Type.Boolean()),
  raw: Type.Optional(Type.Boolean()),
});

const StringList = Type.Array(Type.String());
const ExecutorOptionsSchema = Type.Object({ docker: Type.Optional(Type.Object({ user: Type.Optional(Type.String()) })) });

const PortSchema = Type.Object({
  number: Type.Number(),
  protocol: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});

export const JobPayloadSchema = Type.Object({
  id: Type.Number(),
  token: Type.String(),
  allow_git_fetch: Type.Boolean(),
  job_info: Type.Object({
    name: Type.String(),
    stage: Type.String(),
    project_id: Type.Number(),
    project_name: Type.String(),
  }),
  git_info: Type.Object({
    repo_url: Type.String(),
    ref: Type.String(),
    sha: Type.String(),
    before_sha: Type.String(),
    ref_type: Type.Union([Type.Literal('branch'), Type.Literal('tag')]),
    refspecs: StringList,
    depth: Type.Number(),
  }),
  runner_info: Type.Object({
    timeout: Type.Number(),
    runner_session_url: Type.Union([Type.String(), Type.Null()]),
  }),
  variables: Type.Array(JobVariableSchema),
  steps: Type.Array(
    Type.Object({
      name: Type.String(),
      script: StringList,
      timeout: Type.Number(),
      when: Type.String(),
      allow_failure: Type.Boolean(),
    }),
  ),
  image: Type.Union([
    Type.Object({
      name: Type.String(),
      entrypoint: Type.Optional(Type.Union([StringList, Type.Null()])),
      ports: Type.Optional(Type.Array(PortSchema)),
      executor_opts: Type.Optional(ExecutorOptionsSchema),
      pull_policy: Type.Optional(Type.Union([StringList, Type.Null()])),
    }),
    Type.Null(),
  ]),
  services: Type.Array(
    Type.Object({
      name: Type.String(),
      entrypoint: Type.Union([StringList, Type.Null()]),
      ports: Type.Array(PortSchema),
      alias: Type.Union([Type.String(), Type.Null()]),
      command: Type.Union([StringList, Type.Null()]),
      variables: Type.Optional(Type.Array(Type.Object({ key: Type.String(), value: Type.String() }))),
      executor_opts: Type.Optional(ExecutorOptionsSchema),
      pull_policy: Type.Optional(Type.Union([StringList, Type.Null()])),
    }),
  ),
  artifacts: Type.Array(
    Type.Object({
      name: Type.String(),
      untracked: Type.Optional(Type.Boolean()),
      paths: StringList,
      exclude: Type.Optional(StringList),
      when: Type.String(),
      expire_in: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      artifact_type: Type.String(),
      artifact_format: Type.String(),
    }),
  ),
  cache: Type.Array(
    Type.Object({
      key: Type.String(),
      untracked: Type.Boolean(),
      paths: StringList,
      policy: Type.String(),
      when: Type.String(),
    }),
  ),
  credentials: Type.Array(
    Type.Object({ type: Type.String(), url: Type.String(), username: Type.String(), password: Type.String() }),
  ),
  dependencies: Type.Array(
    Type.Object({
      id: Type.Number(),
      name: Type.String(),
      token: Type.String(),
      artifacts_file: Type.Optional(Type.Object({ filename: Type.String(), size: Type.Number() })),
    }),
  ),
  features: Type.Object({
    trace_sections: Type.Boolean(),
    failure_reasons: Type.Optional(StringList),
  }),
  hooks: Type.Optional(Type.Array(Type.Object({ name: Type.String(), script: StringList }))),
});

export type JobPayloadShape = Static<typeof JobPayloadSchema>;
