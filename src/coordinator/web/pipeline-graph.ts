import { html, type Markup } from './html.ts';
import { formatDuration, statusIcon } from './pipeline-format.ts';

/** A job as the graph draws it. */
export interface GraphJob {
  id: number;
  name: string;
  stage: string;
  stageIndex: number;
  status: string;
  durationSeconds: number | null;
  /** Names of the jobs it needs; null: it waits for the earlier stages (no edges drawn). */
  needs: readonly string[] | null;
  /** Its page; null for a trigger job that started no pipeline (it has no page of its own, as on GitLab). */
  href: string | null;
}

const COLUMN_WIDTH = 200;
const BOX_WIDTH = 168;
const BOX_HEIGHT = 40;
const ROW_GAP = 14;
const HEADER_HEIGHT = 28;
const MARGIN = 8;
const NAME_CHARACTERS = 20;

interface Placed {
  job: GraphJob;
  x: number;
  y: number;
}

/**
 * The pipeline graph, computed on the server: one column per stage, a box per job linking to
 * its page, and a curve from each needed job to the job that needs it. Positions are SVG
 * attributes, which the CSP allows (inline styles it does not).
 */
export function pipelineGraph(jobs: readonly GraphJob[]): Markup {
  const stages = [...new Map(jobs.map((job) => [job.stageIndex, job.stage])).entries()].sort(([a], [b]) => a - b);
  const column = new Map(stages.map(([index], position) => [index, position]));
  const placed: Placed[] = [];
  const rows = new Map<number, number>();
  for (const job of jobs) {
    const position = column.get(job.stageIndex)!;
    const row = rows.get(position) ?? 0;
    rows.set(position, row + 1);
    placed.push({ job, x: MARGIN + position * COLUMN_WIDTH, y: HEADER_HEIGHT + row * (BOX_HEIGHT + ROW_GAP) });
  }
  const byName = new Map<string, Placed>();
  for (const entry of placed) if (!byName.has(entry.job.name)) byName.set(entry.job.name, entry);
  const width = MARGIN * 2 + Math.max(1, stages.length) * COLUMN_WIDTH;
  const height = HEADER_HEIGHT + Math.max(1, ...rows.values()) * (BOX_HEIGHT + ROW_GAP);
  const edges = placed.flatMap(({ job, x, y }) =>
    (job.needs ?? []).flatMap((name) => {
      const from = byName.get(name);
      if (!from) return [];
      const startX = from.x + BOX_WIDTH;
      const startY = from.y + BOX_HEIGHT / 2;
      const endY = y + BOX_HEIGHT / 2;
      const bend = Math.max(24, (x - startX) / 2);
      return [html`<path class="need" d="M${startX} ${startY} C${startX + bend} ${startY} ${x - bend} ${endY} ${x} ${endY}"><title>${job.name} needs ${name}</title></path>`];
    }),
  );
  const headers = stages.map(([, name], position) => html`<text class="stage" x="${MARGIN + position * COLUMN_WIDTH}" y="18">${shorten(name)}</text>`);
  const boxes = placed.map(({ job, x, y }) => {
    const duration = job.durationSeconds === null ? '' : ` · ${formatDuration(job.durationSeconds)}`;
    const box = html`<title>${job.name}: ${job.status}${duration}</title><rect x="${x}" y="${y}" width="${BOX_WIDTH}" height="${BOX_HEIGHT}" rx="6"></rect><text x="${x + 10}" y="${y + 17}">${statusIcon(job.status)} ${shorten(job.name)}</text><text class="detail" x="${x + 10}" y="${y + 32}">${job.status}${duration}</text>`;
    return job.href === null ? html`<g class="job status-${job.status}">${box}</g>` : html`<a href="${job.href}" class="job status-${job.status}">${box}</a>`;
  });
  return html`<svg class="pipeline-graph" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="group" aria-label="Pipeline graph: stages as columns, needs as lines">${edges}${headers}${boxes}</svg>`;
}

function shorten(text: string): string {
  return text.length > NAME_CHARACTERS ? `${text.slice(0, NAME_CHARACTERS - 1)}…` : text;
}
