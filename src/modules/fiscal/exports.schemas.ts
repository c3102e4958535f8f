import type { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import { CalendarDate } from '../../platform/schemas.js';

/** The period of an accountant export: local dates (the tenant's time zone), both included. */
export const ExportPeriodQuery = Type.Object({
  startDate: CalendarDate('first day, included'),
  endDate: CalendarDate('last day, included; not before startDate'),
});
export type ExportPeriodQuery = Static<typeof ExportPeriodQuery>;

export const ExportLink = Type.Object({
  url: Type.String({ description: 'path of the download (`/t/:slug/accountant/export/files/<token>`), valid 15 minutes, no token needed' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const ExportTokenParams = Type.Object({
  slug: Type.String({ maxLength: 64 }),
  token: Type.String({ pattern: '^[0-9a-f]{64}$', description: '64 hex characters' }),
});

const binary = { schema: { type: 'string', format: 'binary' } };
export const ExportDownload = Type.Unsafe<Buffer>({ description: 'the file, as an attachment', content: { 'text/plain': binary } });
export const ZipDownload = Type.Unsafe<Buffer | Readable>({ description: 'a ZIP of XML files, streamed', content: { 'application/zip': binary } });
