import { Type, type Static } from '@sinclair/typebox';
import { ACCOUNT_NATURES, ACCOUNT_TYPES, NORMAL_BALANCES } from '../../db/schema/accounting.js';
import { Body, Id, Nullable, StringEnum } from '../../platform/schemas.js';
import { DRE_GROUPS } from './chart.defaults.js';

/** The chart of accounts (spec 2 "ChartAccount", 4.11 `/chart`). */

export const CODE_PATTERN = '^\\d{1,6}(\\.\\d{1,6}){0,7}$';

export const ChartAccount = Type.Object(
  {
    _id: Id,
    code: Type.String({ description: 'dotted, e.g. 1.1.01' }),
    name: Type.String(),
    nature: StringEnum(ACCOUNT_NATURES),
    type: StringEnum(ACCOUNT_TYPES, { description: 'sintetica: a group (parent of others, never posted to); analitica: receives entries' }),
    normalBalance: StringEnum(NORMAL_BALANCES),
    parent: Nullable(Id),
    dreGroup: Nullable(StringEnum(DRE_GROUPS)),
    tenant: Nullable(Id, { description: 'null: an account of the system default chart' }),
    active: Type.Boolean(),
  },
  { $id: 'ChartAccount' },
);
export type ChartAccountView = Static<typeof ChartAccount>;

export const CreateAccountBody = Body({
  code: Type.String({ pattern: CODE_PATTERN, maxLength: 60, description: 'dotted numbers (1.1.08); under a parent it starts with the parent code and a dot; unique in the tenant across the system and the tenant accounts' }),
  name: Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' }),
  nature: StringEnum(ACCOUNT_NATURES, { description: 'the same as the parent’s' }),
  type: StringEnum(ACCOUNT_TYPES),
  normalBalance: StringEnum(NORMAL_BALANCES, { description: 'free of the nature (a contra account has the opposite one)' }),
  parent: Type.Optional(Nullable(Id, { description: 'an active synthetic account, of the system chart or the tenant' })),
  dreGroup: Type.Optional(Nullable(StringEnum(DRE_GROUPS))),
});
export type CreateAccountInput = Static<typeof CreateAccountBody>;

export const SeedResult = Type.Object({
  created: Type.Integer({ description: 'accounts added to the system chart' }),
  existing: Type.Integer({ description: 'default accounts already there (by code), left as they are' }),
  total: Type.Integer({ description: 'default accounts in the chart' }),
});
