import { chromium, type Browser, type Page } from 'playwright-core';
import { within } from '../helpers/bounded.ts';

/** Debian's Chromium, driven by playwright-core. */
const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return within(chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }), 60_000, 'Chromium starting');
}

/** Dialogs (a script that ran), console errors (the CSP refusing something) and failed requests, as they happen. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    // A missing resource is reported by URL below (the browser's own /favicon.ico asks are no fault).
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}
