/** What a CI job token stands for: the job's project and the user who runs the job. */
export interface JobTokenIdentity {
  projectId: number;
  userId: number;
}

/** Checks CI job tokens (`gitlab-ci-token` as the basic-auth user); the CI area supplies the real one. */
export interface JobTokenVerifier {
  verify(token: string): Promise<JobTokenIdentity | null>;
}

/** Until jobs exist, no job token is valid. */
export const noJobTokens: JobTokenVerifier = {
  verify: async () => null,
};
