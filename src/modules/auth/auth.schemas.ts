import { Type, type Static } from '@sinclair/typebox';
import { PasswordSchema } from '../../platform/auth/passwords.js';
import { MEMBER_ROLES } from '../../db/schema/users.js';
import { Body, Email, StringEnum, Timestamp } from '../../platform/schemas.js';

export const LoginBody = Body({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 200 }),
});
export const RefreshBody = Body({ refreshToken: Type.String({ minLength: 1, maxLength: 200 }) });
export const ChangePasswordBody = Body({
  currentPassword: Type.String({ minLength: 1, maxLength: 200 }),
  newPassword: PasswordSchema,
});
export const ForgotPasswordBody = Body({ email: Email });
export const ResetPasswordBody = Body({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'the token of the reset link' }),
  newPassword: PasswordSchema,
});

export const SessionUser = Type.Object({
  _id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  isSuperadmin: Type.Boolean(),
});

export const TokenPair = Type.Object({
  accessToken: Type.String(),
  refreshToken: Type.String(),
  expiresIn: Type.Integer({ description: 'access token lifetime in seconds' }),
  user: SessionUser,
});

export const Me = Type.Object({
  user: Type.Object({ ...SessionUser.properties, createdAt: Timestamp }),
  tenants: Type.Array(
    Type.Object({ _id: Type.String(), slug: Type.String(), name: Type.String(), isActive: Type.Boolean(), role: StringEnum(MEMBER_ROLES) }),
  ),
});

export type LoginInput = Static<typeof LoginBody>;
export type RefreshInput = Static<typeof RefreshBody>;
export type ChangePasswordInput = Static<typeof ChangePasswordBody>;
export type ForgotPasswordInput = Static<typeof ForgotPasswordBody>;
export type ResetPasswordInput = Static<typeof ResetPasswordBody>;
