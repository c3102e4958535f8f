import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

/** A plain-text message to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * Outgoing mail behind one interface: SMTP when `SMTP_URL` is set (nodemailer), otherwise the
 * message is written to the log (development); tests read a memory transport.
 */
export interface Mailer {
  readonly kind: 'smtp' | 'log' | 'memory';
  /** Sends or throws (the caller's job is retried). */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url, { from });
  return {
    kind: 'smtp',
    async send(message) {
      await transport.sendMail(message);
    },
    async close() {
      transport.close();
    },
  };
}

/** No SMTP configured: the message (links included) goes to the log, for development. */
export function logMailer(log: FastifyBaseLogger, from: string): Mailer {
  return {
    kind: 'log',
    async send({ to, subject, text }) {
      log.info({ mail: { from, to, subject } }, `mail not sent (SMTP_URL is not set); its text:\n${text}`);
    },
    async close() {},
  };
}

export interface MemoryMailer extends Mailer {
  readonly sent: MailMessage[];
  /** Messages sent to one address, oldest first. */
  to(address: string): MailMessage[];
}

/** Keeps every message in memory: for tests. */
export function memoryMailer(): MemoryMailer {
  const sent: MailMessage[] = [];
  return {
    kind: 'memory',
    sent,
    async send(message) {
      sent.push({ ...message });
    },
    async close() {},
    to: (address) => sent.filter((m) => m.to === address),
  };
}

/** Sender when `MAIL_FROM` is not set: `no-reply@` the host of `PUBLIC_URL`. */
export function defaultSender(publicUrl: string): string {
  let host = 'localhost';
  try {
    host = new URL(publicUrl).hostname || host;
  } catch {
    // keep localhost
  }
  return `no-reply@${host}`;
}

export function makeMailer(config: { smtpUrl?: string; mailFrom?: string; publicUrl: string }, log: FastifyBaseLogger): Mailer {
  const from = config.mailFrom ?? defaultSender(config.publicUrl);
  return config.smtpUrl ? smtpMailer(config.smtpUrl, from) : logMailer(log, from);
}
