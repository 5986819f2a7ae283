import { escapeHtml } from './html.ts';

/** GitLab's badge templates (Gitlab::Ci::Badge::*::Template): the same shapes, colours and limits. */
const MAX_KEY_TEXT_SIZE = 64;
const MAX_KEY_WIDTH = 512;
const DEFAULT_KEY_WIDTH = 62;

const PIPELINE_COLORS: Record<string, string> = {
  success: '#4c1',
  failed: '#e05d44',
  running: '#dfb317',
  pending: '#dfb317',
  preparing: '#a7a7a7',
  canceled: '#9f9f9f',
  skipped: '#9f9f9f',
  unknown: '#9f9f9f',
};

const COVERAGE_COLORS = { good: '#4c1', acceptable: '#a3c51c', medium: '#dfb317', low: '#e05d44', unknown: '#9f9f9f' } as const;

/** `key_text` and `key_width` as given in the query (GitLab falls back to its default when out of range). */
export interface BadgeCustomization {
  keyText?: string;
  keyWidth?: number;
}

export interface CoverageThresholds {
  minGood?: number;
  minAcceptable?: number;
  minMedium?: number;
}

interface Badge {
  keyText: string;
  keyWidth: number;
  valueText: string;
  valueWidth: number;
  valueColor: string;
}

function keyOf(entity: string, custom: BadgeCustomization): Pick<Badge, 'keyText' | 'keyWidth'> {
  const keyText = custom.keyText !== undefined && custom.keyText !== '' && [...custom.keyText].length <= MAX_KEY_TEXT_SIZE ? custom.keyText : entity;
  const keyWidth = custom.keyWidth !== undefined && Number.isInteger(custom.keyWidth) && custom.keyWidth >= 1 && custom.keyWidth <= MAX_KEY_WIDTH ? custom.keyWidth : DEFAULT_KEY_WIDTH;
  return { keyText, keyWidth };
}

/** The pipeline badge: `success` reads `passed`; an unknown status is grey. */
export function pipelineBadge(status: string, custom: BadgeCustomization): string {
  return badgeSvg({
    ...keyOf('pipeline', custom),
    valueText: status === 'success' ? 'passed' : status,
    valueWidth: 54,
    valueColor: PIPELINE_COLORS[status] ?? PIPELINE_COLORS.unknown!,
  });
}

/** The coverage badge: the figure with two decimals, coloured by GitLab's default or given thresholds. */
export function coverageBadge(coverage: number | null, custom: BadgeCustomization & CoverageThresholds): string {
  return badgeSvg({
    ...keyOf('coverage', custom),
    valueText: coverage === null ? 'unknown' : `${coverage.toFixed(2)}%`,
    valueWidth: coverage === null ? 58 : 54,
    valueColor: coverageColor(coverage, custom),
  });
}

function between(value: number | undefined, low: number, high: number): value is number {
  return value !== undefined && Number.isInteger(value) && value >= low && value <= high;
}

function coverageColor(coverage: number | null, limits: CoverageThresholds): string {
  if (coverage === null || coverage < 0 || coverage > 100) return COVERAGE_COLORS.unknown;
  const good = between(limits.minGood, 3, 100) ? limits.minGood : 95;
  const acceptable = between(limits.minAcceptable, 2, good - 1) ? limits.minAcceptable : Math.min(90, good - 1);
  const medium = between(limits.minMedium, 1, acceptable - 1) ? limits.minMedium : Math.min(75, acceptable - 1);
  if (coverage >= good) return COVERAGE_COLORS.good;
  if (coverage >= acceptable) return COVERAGE_COLORS.acceptable;
  if (coverage >= medium) return COVERAGE_COLORS.medium;
  return COVERAGE_COLORS.low;
}

function badgeSvg(badge: Badge): string {
  const width = badge.keyWidth + badge.valueWidth;
  const keyAnchor = Math.floor(badge.keyWidth / 2);
  const valueAnchor = badge.keyWidth + Math.floor(badge.valueWidth / 2);
  const key = escapeHtml(badge.keyText);
  const value = escapeHtml(badge.valueText);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20">
  <linearGradient id="b" x2="0" y2="100%">
    <stop offset="0" stop-color="#bbb" stop-opacity=".1"/>
    <stop offset="1" stop-opacity=".1"/>
  </linearGradient>

  <mask id="a">
    <rect width="${width}" height="20" rx="3" fill="#fff"/>
  </mask>

  <g mask="url(#a)">
    <path fill="#555" d="M0 0h ${badge.keyWidth}v 20H 0z"/>
    <path fill="${badge.valueColor}" d="M${badge.keyWidth} 0h ${badge.valueWidth}v 20H ${badge.keyWidth}z"/>
    <path fill="url(#b)" d="M0 0h ${width}v 20H 0z"/>
  </g>

  <g fill="#fff" text-anchor="middle">
    <g font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11">
      <text x="${keyAnchor}" y="15" fill="#010101" fill-opacity=".3">${key}</text>
      <text x="${keyAnchor}" y="14">${key}</text>
      <text x="${valueAnchor}" y="15" fill="#010101" fill-opacity=".3">${value}</text>
      <text x="${valueAnchor}" y="14">${value}</text>
    </g>
  </g>
</svg>
`;
}
