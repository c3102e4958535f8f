import { Type, type Static } from '@sinclair/typebox';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import { POSTING_KEY_NAMES } from './books.js';

/** The account mapping of the automatic postings (beyond the spec; docs/decisions.md "Accounting: automatic postings"). */

export const MappingParams = Type.Object({
  slug: Type.String({ maxLength: 64 }),
  key: Type.String({ maxLength: 64, description: 'a posting key (GET .../mappings lists them); another is 404' }),
});
export type MappingParamsInput = Static<typeof MappingParams>;

const MappedAccount = Type.Object({ _id: Id, code: Type.String(), name: Type.String() });

export const AccountMapping = Type.Object(
  {
    key: StringEnum(POSTING_KEY_NAMES),
    label: Type.String({ description: 'what the postings put on it' }),
    defaultCode: Type.String({ description: 'the default chart account of the key' }),
    account: Nullable(MappedAccount, { description: 'the account postings use now: the override, else the default code (null: the default chart is not loaded)' }),
    overridden: Type.Boolean({ description: 'the tenant’s own account is in use' }),
    updatedAt: Nullable(Timestamp, { description: 'when the override was set' }),
  },
  { $id: 'AccountMapping' },
);
export type AccountMappingView = Static<typeof AccountMapping>;

export const MappingBody = Body({
  accountId: Id,
});
export type MappingInput = Static<typeof MappingBody>;
