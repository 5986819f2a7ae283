import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Transporter } from 'nodemailer';

/** A message an integration sends (text only; its size is bounded by whoever builds it). */
export interface OutgoingMail {
  from: string;
  to: readonly string[];
  subject: string;
  text: string;
  /** Extra headers (GitLab's `X-GitLab-*` kind). */
  headers?: Readonly<Record<string, string>>;
}

/** Where integration mail goes. `deliver` throws on failure (the task queue retries it). */
export interface MailOutbox {
  /** `key` names the message for idempotency: delivering one key twice leaves one file in a maildir. */
  deliver(message: OutgoingMail, key: string): Promise<void>;
  readonly description: string;
}

/** SMTP server settings (coordinator options `mail.smtp`). */
export interface SmtpSettings {
  host: string;
  port: number;
  user?: string;
  password?: string;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure?: boolean;
}

export interface MailOptions {
  /** The From address of integration mail. Default `gantry@<host of the external URL>`. */
  from?: string;
  /** Deliver through this SMTP server instead of the maildir under the data directory. */
  smtp?: SmtpSettings;
}

/**
 * nodemailer, imported on the first message: most coordinators (`runner exec`'s among them)
 * never send one, and evaluating it costs a starting process about 0.1–0.2 s of CPU.
 */
let nodemailerModule: Promise<typeof import('nodemailer')> | undefined;
const loadNodemailer = (): Promise<typeof import('nodemailer')> => (nodemailerModule ??= import('nodemailer'));

let composer: Promise<Transporter> | undefined;

/** The RFC 5322 text of a message (nodemailer composes headers, encodings, Date and Message-ID). */
async function compose(message: OutgoingMail): Promise<Buffer> {
  composer ??= loadNodemailer().then(({ default: nodemailer }) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  const info = await (await composer).sendMail({ from: message.from, to: [...message.to], subject: message.subject, text: message.text, headers: { ...message.headers } });
  return info.message as Buffer;
}

/**
 * A maildir (`<data>/mail/{tmp,new,cur}`): each message is written under tmp/ and renamed into
 * new/, so a reader never sees half a message. A key names the file: a retried delivery
 * replaces it rather than adding a copy.
 */
export class MaildirOutbox implements MailOutbox {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `maildir ${root}`;
  }

  async deliver(message: OutgoingMail, key: string): Promise<void> {
    await Promise.all(['tmp', 'new', 'cur'].map((folder) => mkdir(path.join(this.root, folder), { recursive: true })));
    const name = `${key.replace(/[^A-Za-z0-9._-]/g, '_')}.${hostname().replace(/[/:]/g, '_')}`;
    const temporary = path.join(this.root, 'tmp', `${name}.${randomBytes(6).toString('hex')}`);
    await writeFile(temporary, await compose(message), { flag: 'wx' });
    await rename(temporary, path.join(this.root, 'new', name));
  }
}

/** Delivery through an SMTP server with nodemailer (a failure throws, and the task is retried). */
export class SmtpOutbox implements MailOutbox {
  readonly description: string;
  private transport: Promise<Transporter> | undefined;

  constructor(private readonly settings: SmtpSettings) {
    this.description = `SMTP ${settings.host}:${settings.port}`;
  }

  async deliver(message: OutgoingMail, key: string): Promise<void> {
    const { settings } = this;
    this.transport ??= loadNodemailer().then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: settings.host,
        port: settings.port,
        secure: settings.secure ?? false,
        ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
        connectionTimeout: 30_000,
        greetingTimeout: 30_000,
        socketTimeout: 60_000,
      }),
    );
    await (await this.transport).sendMail({ from: message.from, to: [...message.to], subject: message.subject, text: message.text, headers: { ...message.headers, 'X-Gantry-Delivery': key } });
  }
}

/** The maildir under the data directory, or SMTP when configured. */
export function createOutbox(options: MailOptions, dataDir: string): MailOutbox {
  return options.smtp ? new SmtpOutbox(options.smtp) : new MaildirOutbox(path.join(dataDir, 'mail'));
}

/** The From address: configured, else `gantry@<host of the external URL>`. */
export function fromAddress(options: MailOptions, externalUrl: string): string {
  if (options.from) return options.from;
  let host = 'localhost';
  try {
    host = new URL(externalUrl).hostname || host;
  } catch {
    // A malformed external URL keeps localhost.
  }
  return `gantry@${host}`;
}
