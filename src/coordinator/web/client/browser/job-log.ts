/**
 * The job page's live log (bundled by esbuild into one file at build time, scripts/bundle-web-client.mjs).
 * Reads the trace from its byte offset with Range requests on `/-/jobs/:id/raw`, parses in
 * bounded batches between which the page stays responsive, and renders each batch as HTML
 * into blocks of lines the browser skips laying out while off screen (`content-visibility`).
 */
import { formatDuration, LogParser, type LogEvent } from '../log-parser.ts';

const POLL_MS = 750;
/** Characters parsed per task: about 1,000 lines, a few milliseconds. */
const BATCH_CHARS = 64 * 1024;
const LINES_PER_BLOCK = 200;
const ACTIVE = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'canceling']);

interface OpenSection {
  name: string;
  startedAt: number;
  element: HTMLElement;
  body: HTMLElement;
}

class LogView {
  private readonly parser = new LogParser();
  private readonly decoder = new TextDecoder();
  private readonly texts: string[] = [''];
  private readonly queue: string[] = [];
  private readonly sections: OpenSection[] = [];
  private block: HTMLElement | null = null;
  private blockLines = 0;
  private pendingHtml = '';
  private offset = 0;
  private following: boolean;
  private working = false;
  private finished = false;
  private anchor: number | null = null;
  private matchLine = 0;
  private readonly yielder = new MessageChannel();
  private resumeBatch: (() => void) | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly box: HTMLElement,
    private readonly rawUrl: string,
    private readonly statusText: HTMLElement | null,
    active: boolean,
  ) {
    this.following = active;
    this.yielder.port1.onmessage = () => this.resumeBatch?.();
    this.readAnchor();
    box.addEventListener('scroll', () => {
      this.following = box.scrollTop + box.clientHeight >= box.scrollHeight - 8;
      document.body.dataset.following = String(this.following);
    });
    window.addEventListener('hashchange', () => {
      this.readAnchor();
      this.showAnchor();
    });
    root.addEventListener('click', (event) => {
      const toggle = (event.target as HTMLElement).closest('.log-toggle');
      if (!toggle) return;
      const section = toggle.closest('.log-section')!;
      const collapsed = section.classList.toggle('collapsed');
      toggle.setAttribute('aria-expanded', String(!collapsed));
    });
  }

  async start(): Promise<void> {
    for (;;) {
      const more = await this.fetchMore();
      if (more) continue;
      if (this.finished) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    this.enqueueFlush();
  }

  scrollToEnd(): void {
    this.following = true;
    this.box.scrollTop = this.box.scrollHeight;
  }

  /** The next (or previous) line holding `query`; expands its sections and scrolls to it. Answers the match count. */
  find(query: string, backwards: boolean): { at: number; count: number } {
    if (query === '') return { at: 0, count: 0 };
    const needle = query.toLowerCase();
    let count = 0;
    for (let number = 1; number < this.texts.length; number += 1) if (this.texts[number]!.toLowerCase().includes(needle)) count += 1;
    if (count === 0) return { at: 0, count };
    const total = this.texts.length - 1;
    for (let step = 1; step <= total; step += 1) {
      const number = ((((this.matchLine - 1 + (backwards ? -step : step)) % total) + total) % total) + 1;
      if (this.texts[number]!.toLowerCase().includes(needle)) {
        this.matchLine = number;
        this.reveal(number, 'log-match');
        return { at: number, count };
      }
    }
    return { at: 0, count };
  }

  /**
   * Fetches the bytes after `offset`; answers whether there may be more right away. Once it has
   * some, it asks from the last byte it holds, so a log with nothing new answers that byte (206)
   * rather than 416, which the browser would report as a failed request at every poll.
   */
  private async fetchMore(): Promise<boolean> {
    const from = Math.max(0, this.offset - 1);
    let response: Response;
    try {
      response = await fetch(this.rawUrl, { headers: { range: `bytes=${from}-` }, credentials: 'same-origin', cache: 'no-store' });
    } catch {
      return false;
    }
    const status = response.headers.get('x-gantry-job-status');
    if (status && this.statusText) this.statusText.textContent = status;
    if (status && !ACTIVE.has(status)) this.finished = true;
    if (response.status === 416 || response.status === 404) return false;
    if (response.status !== 206 && response.status !== 200) {
      this.finished = true;
      return false;
    }
    // A 206 starts where its Content-Range says, a 200 (a Range the server ignored) at 0: keep what is past `offset`.
    const start = response.status === 206 ? Number(/^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1] ?? from) : 0;
    const bytes = new Uint8Array(await response.arrayBuffer()).subarray(Math.max(0, this.offset - start));
    if (bytes.byteLength === 0) return false;
    this.offset += bytes.byteLength;
    this.queue.push(this.decoder.decode(bytes, { stream: true }));
    void this.work();
    const total = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? this.offset);
    if (this.offset < total) {
      // Let the queue drain before fetching more, so memory holds about one response at a time.
      while (this.queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      return true;
    }
    return false;
  }

  private enqueueFlush(): void {
    this.queue.push('\u0000flush');
    void this.work();
  }

  private async work(): Promise<void> {
    if (this.working) return;
    this.working = true;
    while (this.queue.length > 0) {
      let text = this.queue.shift()!;
      if (text === '\u0000flush') {
        this.render(this.parser.flush());
        this.root.dataset.complete = 'true';
        continue;
      }
      if (text.length > BATCH_CHARS) {
        const cut = text.indexOf('\n', BATCH_CHARS);
        if (cut >= 0 && cut < text.length - 1) {
          this.queue.unshift(text.slice(cut + 1));
          text = text.slice(0, cut + 1);
        }
      }
      this.render(this.parser.push(text));
      // Gives the browser a turn (input, paint) between batches without setTimeout's clamping.
      await new Promise<void>((resolve) => {
        this.resumeBatch = resolve;
        this.yielder.port2.postMessage(null);
      });
    }
    this.working = false;
  }

  private render(events: LogEvent[]): void {
    for (const event of events) {
      if (event.kind === 'line') {
        const { number, html, time, text } = event.line;
        this.texts[number] = text;
        const stamp = time ? `<span class="log-time">${time}</span>` : '';
        const line = `<div class="log-line" id="L${number}"><a class="log-number" href="#L${number}">${number}</a>${stamp}<span class="log-text">${html}</span></div>`;
        const header = this.sections.length > 0 && this.sections[this.sections.length - 1]!.element.dataset.header === 'pending';
        if (header) this.setHeader(line);
        else this.addLine(line);
      } else if (event.kind === 'append') {
        this.texts[event.number] += event.text;
        this.flushPending();
        const target = this.root.querySelector(`#L${event.number} .log-text`);
        if (target) target.insertAdjacentHTML('beforeend', event.html);
      } else if (event.kind === 'section-start') {
        this.openSection(event.name, event.startedAt, event.collapsed);
      } else {
        this.closeSection(event.name, event.endedAt);
      }
    }
    this.flushPending();
    this.root.dataset.lines = String(this.texts.length - 1);
    if (this.anchor !== null && this.anchor < this.texts.length) this.showAnchor();
    else if (this.following) this.box.scrollTop = this.box.scrollHeight;
  }

  private addLine(line: string): void {
    if (this.block === null || this.blockLines >= LINES_PER_BLOCK) {
      this.flushPending();
      this.block = document.createElement('div');
      this.block.className = 'log-block';
      this.currentBody().append(this.block);
      this.blockLines = 0;
    }
    this.pendingHtml += line;
    this.blockLines += 1;
  }

  private flushPending(): void {
    if (this.pendingHtml === '' || this.block === null) return;
    this.block.insertAdjacentHTML('beforeend', this.pendingHtml);
    this.pendingHtml = '';
  }

  private currentBody(): HTMLElement {
    return this.sections.length > 0 ? this.sections[this.sections.length - 1]!.body : this.root;
  }

  private openSection(name: string, startedAt: number, collapsed: boolean): void {
    this.flushPending();
    const element = document.createElement('div');
    element.className = collapsed ? 'log-section collapsed' : 'log-section';
    element.dataset.section = name;
    element.dataset.header = 'pending';
    const body = document.createElement('div');
    body.className = 'log-section-body';
    element.append(body);
    this.currentBody().append(element);
    this.sections.push({ name, startedAt, element, body });
    this.block = null;
  }

  private setHeader(line: string): void {
    const section = this.sections[this.sections.length - 1]!;
    const expanded = !section.element.classList.contains('collapsed');
    const header = document.createElement('div');
    header.className = 'log-section-header';
    header.innerHTML = `<button type="button" class="log-toggle" aria-expanded="${expanded}" aria-label="Toggle section"></button>${line}<span class="log-duration"></span>`;
    section.element.insertBefore(header, section.body);
    delete section.element.dataset.header;
  }

  private closeSection(name: string, endedAt: number): void {
    const index = this.sections.map((section) => section.name).lastIndexOf(name);
    if (index < 0) return;
    this.flushPending();
    for (const section of this.sections.splice(index)) {
      if (section.element.dataset.header === 'pending') this.setHeader('<div class="log-line"></div>');
      const duration = section.element.querySelector(':scope > .log-section-header > .log-duration');
      if (duration && section.name === name) duration.textContent = formatDuration(endedAt - section.startedAt);
    }
    this.block = null;
  }

  private readAnchor(): void {
    const match = /^#L(\d{1,9})$/.exec(window.location.hash);
    this.anchor = match ? Number(match[1]) : null;
    if (this.anchor !== null) this.following = false;
  }

  private showAnchor(): void {
    if (this.anchor === null || this.anchor >= this.texts.length) return;
    this.reveal(this.anchor, 'log-target');
    this.anchor = null;
  }

  private reveal(number: number, mark: string): void {
    this.flushPending();
    for (const old of this.root.querySelectorAll(`.${mark}`)) old.classList.remove(mark);
    const line = document.getElementById(`L${number}`);
    if (!line) return;
    for (let section = line.closest('.log-section.collapsed'); section; section = section.parentElement?.closest('.log-section.collapsed') ?? null) {
      section.classList.remove('collapsed');
      section.querySelector(':scope > .log-section-header > .log-toggle')?.setAttribute('aria-expanded', 'true');
    }
    line.classList.add(mark);
    this.following = false;
    line.scrollIntoView({ block: 'center' });
  }
}

function setUp(): void {
  const root = document.getElementById('log');
  const box = document.getElementById('log-box');
  if (!root || !box || !root.dataset.raw) return;
  const view = new LogView(root, box, root.dataset.raw, document.getElementById('job-status'), root.dataset.active === 'true');
  document.getElementById('log-timestamps')?.addEventListener('change', (event) => {
    root.classList.toggle('hide-times', !(event.target as HTMLInputElement).checked);
  });
  document.getElementById('log-bottom')?.addEventListener('click', () => view.scrollToEnd());
  const search = document.getElementById('log-search') as HTMLFormElement | null;
  const query = document.getElementById('log-query') as HTMLInputElement | null;
  const result = document.getElementById('log-search-result');
  const run = (backwards: boolean) => {
    if (!query || !result) return;
    const { at, count } = view.find(query.value, backwards);
    result.textContent = count === 0 ? 'No match' : `Line ${at}: ${count} lines match`;
  };
  search?.addEventListener('submit', (event) => {
    event.preventDefault();
    run(false);
  });
  document.getElementById('log-previous')?.addEventListener('click', () => run(true));
  void view.start();
}

setUp();
