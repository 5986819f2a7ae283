/** The job page's styles (appended to the pages' stylesheet): a terminal's colours and the log's layout. */
const COLOURS: ReadonlyArray<readonly [string, string]> = [
  ['black', '#000'], ['red', '#c0392b'], ['green', '#2ecc71'], ['yellow', '#d4ac0d'], ['blue', '#5b8def'], ['magenta', '#c061cb'], ['cyan', '#1abc9c'], ['white', '#ddd'],
  ['bright-black', '#777'], ['bright-red', '#ff6b6b'], ['bright-green', '#7bed9f'], ['bright-yellow', '#ffe066'], ['bright-blue', '#74b9ff'], ['bright-magenta', '#f78fb3'], ['bright-cyan', '#81ecec'], ['bright-white', '#fff'],
];

const colourRules = COLOURS.map(([name, value]) => `.log .ansi-${name}-fg { color: ${value}; } .log .ansi-${name}-bg { background: ${value}; }`).join('\n');

export const LOG_STYLESHEET = `
.job-meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 1rem; }
.job-meta dt { font-weight: 600; }
.job-meta dd { margin: 0; }
.job-actions { display: flex; gap: .5rem; margin: 0 0 1rem; }
.job-actions form { margin: 0; }
.job-actions button, .log-tools button { font: inherit; padding: .3rem .7rem; border: 1px solid #89888d; border-radius: 4px; background: #fff; cursor: pointer; }
.log-tools { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: 0 0 .5rem; }
.log-tools form { margin: 0; }
.log-box { height: 70vh; overflow: auto; background: #1f1e24; color: #ddd; border-radius: 4px; padding: .5rem 0; }
.log { font: 13px/20px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.log-block { content-visibility: auto; contain-intrinsic-size: auto 4000px; }
.log-line { display: flex; gap: .75rem; padding: 0 1rem 0 0; white-space: pre-wrap; word-break: break-all; min-height: 20px; }
.log-number { flex: none; width: 4.5rem; text-align: right; color: #8f8f99; text-decoration: none; user-select: none; }
.log-time { flex: none; color: #8f8f99; }
.hide-times .log-time { display: none; }
.log-text { flex: 1; }
.log-section-header { display: flex; align-items: flex-start; }
.log-section-header .log-line { flex: 1; }
.log-toggle { flex: none; width: 1.4rem; height: 20px; padding: 0; border: 0; background: transparent; color: #ddd; cursor: pointer; }
.log-toggle::before { content: "▾"; }
.collapsed > .log-section-header .log-toggle::before { content: "▸"; }
.collapsed > .log-section-body { display: none; }
.log-duration { flex: none; padding: 0 1rem; color: #8f8f99; }
.log-match, .log-target { background: #4d4a00; }
.log .ansi-bold { font-weight: bold; }
.log .ansi-faint { opacity: .7; }
.log .ansi-italic { font-style: italic; }
.log .ansi-underline { text-decoration: underline; }
${colourRules}
`;
