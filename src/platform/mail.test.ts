import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { defaultSender, makeMailer, memoryMailer } from './mail.js';

/** A minimal SMTP server on the loopback that accepts every message and keeps it. */
function fakeSmtp(): Promise<{ server: Server; port: number; messages: { from: string; to: string[]; data: string }[] }> {
  const messages: { from: string; to: string[]; data: string }[] = [];
  const server = createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    socket.write('220 localhost ESMTP test\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages.push(current);
            current = { from: '', to: [], data: '' };
            socket.write('250 2.0.0 queued\r\n');
          } else current.data += line.replace(/^\.\./, '.') + '\n';
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-localhost\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') {
          current.from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          socket.write('250 2.1.0 ok\r\n');
        } else if (verb === 'RCPT') {
          current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          socket.write('250 2.1.5 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, messages })));
}

const silentLog = () => {
  const lines: { obj: unknown; msg: string }[] = [];
  const log = { info: (obj: unknown, msg: string) => lines.push({ obj, msg }) } as never;
  return { log, lines };
};

describe('mail transports', () => {
  it('sends through SMTP when SMTP_URL is set (nodemailer)', async () => {
    const smtp = await fakeSmtp();
    const mailer = makeMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: 'Cantina <no-reply@cantina.example>', publicUrl: 'http://x' }, silentLog().log);
    try {
      expect(mailer.kind).toBe('smtp');
      await mailer.send({ to: 'ana@example.com', subject: 'Password reset', text: 'Open https://panel.example/reset-password#token=abc' });
      expect(smtp.messages).toHaveLength(1);
      const [m] = smtp.messages;
      expect(m.from).toBe('no-reply@cantina.example');
      expect(m.to).toEqual(['ana@example.com']);
      expect(m.data).toMatch(/^Subject: Password reset$/m);
      expect(m.data).toContain('https://panel.example/reset-password#token=abc');
    } finally {
      await mailer.close();
      smtp.server.close();
    }
  });

  it('fails the send when the SMTP server cannot be reached (the job is retried)', async () => {
    const smtp = await fakeSmtp();
    const port = smtp.port;
    await new Promise((r) => smtp.server.close(r));
    const mailer = makeMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, publicUrl: 'http://x' }, silentLog().log);
    await expect(mailer.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow();
    await mailer.close();
  });

  it('writes the message to the log when no SMTP is configured', async () => {
    const { log, lines } = silentLog();
    const mailer = makeMailer({ publicUrl: 'https://panel.cantina.example' }, log);
    expect(mailer.kind).toBe('log');
    await mailer.send({ to: 'ana@example.com', subject: 'Password reset', text: 'the link' });
    expect(lines).toHaveLength(1);
    expect(lines[0].obj).toEqual({ mail: { from: 'no-reply@panel.cantina.example', to: 'ana@example.com', subject: 'Password reset' } });
    expect(lines[0].msg).toContain('the link');
  });

  it('keeps messages in memory for tests', async () => {
    const mailer = memoryMailer();
    await mailer.send({ to: 'a@example.com', subject: 's', text: 't' });
    expect(mailer.to('a@example.com')).toEqual([{ to: 'a@example.com', subject: 's', text: 't' }]);
    expect(defaultSender('not a url')).toBe('no-reply@localhost');
  });
});

describe('mail and password settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ro-mail-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = (extra: Record<string, string>) => ({ DATA_DIR: dir, ...extra });

  it('reads SMTP_URL and MAIL_FROM, refusing a URL that is not smtp(s)', () => {
    const c = loadConfig(env({ SMTP_URL: 'smtps://user:pass@mail.example.com:465', MAIL_FROM: 'Cantina <no-reply@cantina.example>' }));
    expect(c.smtpUrl).toBe('smtps://user:pass@mail.example.com:465');
    expect(c.mailFrom).toBe('Cantina <no-reply@cantina.example>');
    expect(loadConfig(env({})).smtpUrl).toBeUndefined();
    expect(() => loadConfig(env({ SMTP_URL: 'http://mail.example.com' }))).toThrow(/SMTP_URL/);
  });

  it('refuses a chosen superadmin or demo password bcrypt could not hold whole (over 72 bytes)', () => {
    expect(() => loadConfig(env({ SUPERADMIN_PASSWORD: 'é'.repeat(37) }))).toThrow(/SUPERADMIN_PASSWORD.*72 bytes/);
    expect(() => loadConfig(env({ DEMO_PASSWORD: 'x'.repeat(73) }))).toThrow(/DEMO_PASSWORD/);
    expect(() => loadConfig(env({ SUPERADMIN_PASSWORD: 'short' }))).toThrow(/SUPERADMIN_PASSWORD/);
    expect(loadConfig(env({ SUPERADMIN_PASSWORD: 'é'.repeat(36) })).superadminPassword).toBe('é'.repeat(36));
  });
});
