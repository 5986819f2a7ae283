import { html, type HtmlValue, type Markup } from './html.ts';

/** What every page knows about the request: where the coordinator is mounted and who is looking. */
export interface PageFrame {
  /** The mount prefix (`''` on its own, `/ci` under a host). */
  prefix: string;
  viewer: { username: string; name: string; csrfToken: string } | null;
}

export const STYLESHEET_PATH = '/-/gantry/style.css';

/** The security headers of every page: a strict Content-Security-Policy, no framing, no sniffing. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cache-control': 'no-store',
};

export function layout(frame: PageFrame, title: string, body: HtmlValue): Markup {
  const { prefix, viewer } = frame;
  const account = viewer
    ? html`<span>${viewer.name} (@${viewer.username})</span>
        <form method="post" action="${prefix}/users/sign_out"><input type="hidden" name="authenticity_token" value="${viewer.csrfToken}"><button type="submit">Sign out</button></form>`
    : html`<a href="${prefix}/users/sign_in">Sign in</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Gantry</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${prefix}${STYLESHEET_PATH}">
</head>
<body>
<header class="top"><a class="brand" href="${prefix}/">Gantry</a><nav><a href="${prefix}/explore/projects">Projects</a></nav>${account}</header>
<main id="content">
${body}
</main>
</body>
</html>
`;
}

/** The page of a refusal: 404 also for what exists but the viewer may not see. */
export function errorPage(frame: PageFrame, status: 400 | 403 | 404 | 429, message: string): Markup {
  const titles = { 400: 'Bad request', 403: 'Access denied', 404: 'Page not found', 429: 'Too many requests' } as const;
  return layout(frame, titles[status], html`<h1>${status}: ${titles[status]}</h1><p>${message}</p>`);
}
