/**
 * The pages' one template helper: `html\`<p>${text}</p>\`` escapes every interpolated value
 * unless it is already markup (another `html` result, or library output marked `trusted`).
 */
export class Markup {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Markup | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function render(value: HtmlValue): string {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  // false, null and undefined render nothing, so `${condition && html`...`}` reads naturally.
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Markup {
  let text = strings[0]!;
  for (let index = 0; index < values.length; index += 1) text += render(values[index]) + strings[index + 1]!;
  return new Markup(text);
}

/** Markup made by a library that escapes on its own (markdown-it with html off, ansi_up). */
export function trusted(markup: string): Markup {
  return new Markup(markup);
}
