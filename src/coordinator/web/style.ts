/** The pages' one stylesheet, served at /-/gantry/style.css (CSP allows styles from the site only). */
export const STYLESHEET = `
:root { color-scheme: light; --fg: #1f1e24; --muted: #626168; --line: #dcdcde; --accent: #1f75cb; --bad: #c91c00; --good: #108548; --warn: #ab6100; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, summary:focus-visible { outline: 3px solid #428fdc; outline-offset: 2px; }
header.top { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #2c2b33; color: #fff; }
header.top a { color: #fff; text-decoration: none; }
header.top .brand { font-weight: 600; margin-right: auto; }
header.top form { margin: 0; }
header.top button { background: transparent; color: #fff; border: 1px solid #888; border-radius: 4px; padding: .2rem .6rem; cursor: pointer; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); }
.muted { color: var(--muted); }
.notice { padding: .6rem .8rem; border: 1px solid var(--line); border-left: 4px solid var(--bad); margin: 0 0 1rem; }
form.sign-in { max-width: 22rem; display: grid; gap: .6rem; }
form.sign-in input { font: inherit; padding: .4rem; border: 1px solid #89888d; border-radius: 4px; }
form.sign-in button { font: inherit; padding: .45rem; border: 0; border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
.status { font-weight: 600; }
.status-success { color: var(--good); }
.status-failed { color: var(--bad); }
.status-running, .status-pending { color: var(--warn); }
.status-canceled, .status-skipped, .status-created, .status-manual { color: var(--muted); }
form.inline { display: inline; margin: 0 .3rem 0 0; }
form.inline button, .actions button { font: inherit; padding: .2rem .6rem; border: 1px solid #89888d; border-radius: 4px; background: #fff; cursor: pointer; }
.actions { margin: 0 0 1rem; }
nav.tabs { margin: 0 0 .8rem; }
nav.tabs a[aria-current="page"] { font-weight: 600; text-decoration: none; color: var(--fg); }
.sha { font-family: ui-monospace, monospace; }
.graph { overflow-x: auto; margin: 0 0 1rem; }
svg.pipeline-graph text { font: 13px system-ui, sans-serif; fill: var(--fg); }
svg.pipeline-graph text.stage { font-weight: 600; text-transform: capitalize; }
svg.pipeline-graph text.detail { font-size: 11px; fill: var(--muted); }
svg.pipeline-graph rect { fill: #fff; stroke: #89888d; }
svg.pipeline-graph a.status-success rect { stroke: var(--good); }
svg.pipeline-graph a.status-failed rect { stroke: var(--bad); stroke-width: 2; }
svg.pipeline-graph a.status-running rect, svg.pipeline-graph a.status-pending rect { stroke: var(--warn); }
svg.pipeline-graph a:focus-visible rect, svg.pipeline-graph a:hover rect { stroke: #428fdc; stroke-width: 3; outline: none; }
svg.pipeline-graph path.need { fill: none; stroke: #89888d; stroke-width: 1.5; }
pre.code, pre.message { font: 13px/1.45 ui-monospace, monospace; background: #fbfafd; border: 1px solid var(--line); padding: .5rem 0; overflow-x: auto; }
pre.message { padding: .5rem .8rem; white-space: pre-wrap; }
pre.code .line { display: block; padding-right: 1rem; }
pre.code .line:target { background: #fdf1dd; }
pre.code a.ln { display: inline-block; width: 4.5rem; padding-right: 1rem; text-align: right; color: var(--muted); text-decoration: none; user-select: none; }
article.readme { border: 1px solid var(--line); border-radius: 4px; padding: 0 1rem; overflow-wrap: anywhere; }
article.readme pre { background: #fbfafd; padding: .5rem; overflow-x: auto; }
.refs { display: flex; gap: 2rem; flex-wrap: wrap; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
pre.diff .line { display: block; padding: 0 1rem; white-space: pre; }
pre.diff .added { background: #ecfdf0; }
pre.diff .removed { background: #fbe9eb; }
pre.diff .hunk { color: var(--muted); background: #f4f4f8; }
ul.labels { display: inline; list-style: none; padding: 0; margin: 0; }
li.label { display: inline-block; padding: 0 .5rem; margin-right: .3rem; border: 1px solid var(--line); border-radius: 1rem; }
ol.activity { list-style: none; padding: 0; }
ol.activity > li { border-top: 1px solid var(--line); padding: .4rem 0; }
li.system-note .markdown, li.system-note .markdown p { display: inline; }
ol.replies { list-style: none; padding-left: 1.5rem; }
`;
