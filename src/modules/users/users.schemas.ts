import { Type, type Static } from '@sinclair/typebox';
import { MEMBER_ROLES } from '../../db/schema/users.js';
import { PasswordSchema } from '../../platform/auth/passwords.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, Email, Id, StringEnum, Timestamp } from '../../platform/schemas.js';

export const MemberRoleSchema = StringEnum(MEMBER_ROLES);
const Name = Type.String({ minLength: 1, maxLength: 120 });
const IdList = Type.Array(Id, { maxItems: 200, uniqueItems: true });

export const User = Type.Object(
  {
    _id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: MemberRoleSchema,
    assignedPdvIds: Type.Array(Type.String()),
    assignedBranchIds: Type.Array(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'User' },
);

export const CreateUserBody = Body({
  email: Email,
  name: Name,
  password: PasswordSchema,
  role: MemberRoleSchema,
  assignedPdvIds: Type.Optional(IdList),
  assignedBranchIds: Type.Optional(IdList),
});

export const UpdateUserBody = Body({
  email: Type.Optional(Email),
  name: Type.Optional(Name),
  password: Type.Optional(PasswordSchema),
  role: Type.Optional(MemberRoleSchema),
  assignedPdvIds: Type.Optional(IdList),
  assignedBranchIds: Type.Optional(IdList),
});

export const Deleted = Type.Object({ deleted: Type.Boolean() });

export type CreateUserInput = Static<typeof CreateUserBody>;
export type UpdateUserInput = Static<typeof UpdateUserBody>;
export type UserView = Static<typeof User>;

/** A tenant's team: tens of people, hundreds for a chain; the panel lists them whole, so the default is the maximum. */
export const USERS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'users' });
export const ListUsersQuery = Type.Object(pageQuery(USERS_PAGE));
