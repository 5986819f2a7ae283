import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PipelinesService } from '../services/ci/pipelines/pipelines.ts';
import { coverageBadge, pipelineBadge, type BadgeCustomization, type CoverageThresholds } from './badge-svg.ts';
import { pageRequest, sendRefusal, type WebEdge } from './frame.ts';

export type BadgeKind = 'pipeline' | 'coverage';

/** GitLab's `no_cache_headers`: a badge always shows the current state. */
const BADGE_HEADERS = {
  'content-type': 'image/svg+xml; charset=utf-8',
  'cache-control': 'max-age=0, private, must-revalidate, no-store',
  pragma: 'no-cache',
  expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
} as const;

/** How many of the ref's newest pipelines `ignore_skipped=true` looks through for one not skipped. */
const SKIPPED_LOOKBACK = 100;

const integer = (value: unknown): number | undefined => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : undefined);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** `/:project/badges/:ref/pipeline.svg` and `coverage.svg`, for whoever may read the project's pipelines. */
export class BadgePages {
  constructor(
    private readonly edge: WebEdge,
    private readonly pipelines: Pick<PipelinesService, 'list'>,
  ) {}

  async serve(kind: BadgeKind, projectPath: string, ref: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const query = request.query as Record<string, unknown>;
    const custom: BadgeCustomization = { keyText: text(query.key_text), keyWidth: integer(query.key_width) };
    try {
      const svg = kind === 'pipeline'
        ? pipelineBadge(await this.pipelineStatus(projectPath, page.actor, ref, query.ignore_skipped === 'true'), custom)
        : coverageBadge(await this.coverage(projectPath, page.actor, ref), { ...custom, ...thresholds(query) });
      return reply.code(200).headers(BADGE_HEADERS).send(svg);
    } catch (error) {
      return sendRefusal(reply, page, error, null);
    }
  }

  /** The status of the ref's newest pipeline (GitLab's Badge::Pipeline::Status), `unknown` without one. */
  private async pipelineStatus(projectPath: string, actor: Parameters<PipelinesService['list']>[1], ref: string, ignoreSkipped: boolean): Promise<string> {
    const { items } = await this.pipelines.list(projectPath, actor, { ref, orderBy: 'id', sort: 'desc' }, { offset: 0, limit: ignoreSkipped ? SKIPPED_LOOKBACK : 1 });
    const latest = ignoreSkipped ? items.find((pipeline) => pipeline.status !== 'skipped') : items[0];
    return latest?.status ?? 'unknown';
  }

  /** The coverage of the ref's newest successful pipeline (GitLab's Badge::Coverage::Report), else null. */
  private async coverage(projectPath: string, actor: Parameters<PipelinesService['list']>[1], ref: string): Promise<number | null> {
    const { items } = await this.pipelines.list(projectPath, actor, { ref, status: 'success', orderBy: 'id', sort: 'desc' }, { offset: 0, limit: 1 });
    const coverage = items[0]?.coverage;
    return coverage === null || coverage === undefined ? null : Math.round(Number(coverage) * 100) / 100;
  }
}

function thresholds(query: Record<string, unknown>): CoverageThresholds {
  return { minGood: integer(query.min_good), minAcceptable: integer(query.min_acceptable), minMedium: integer(query.min_medium) };
}
