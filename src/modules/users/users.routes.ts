import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { CreateUserBody, Deleted, ListUsersQuery, UpdateUserBody, User, USERS_PAGE } from './users.schemas.js';
import type { UsersService } from './users.service.js';

const admin = { roles: ['admin'] } as const;

export function usersRoutes(app: RouteApp, { users }: { users: UsersService }) {
  app.get('/t/:slug/users', {
    schema: {
      tags: ['users'],
      summary: 'Users of the tenant, oldest first (`page`, `limit`; X-Total-Count)',
      params: TenantParams,
      querystring: ListUsersQuery,
      response: withErrors({ 200: Type.Array(User) }),
    },
    config: { auth: admin },
    handler: async (req, reply) => {
      const { users: rows, total } = await users.listPage(ctxOf(req), req.query);
      return sendPage(req, reply, pageWindow(req.query, USERS_PAGE), total, rows);
    },
  });

  app.post('/t/:slug/users', {
    schema: {
      tags: ['users'],
      summary: 'Create a user in the tenant',
      description:
        'An email that already has an account links that person (their name and password are kept; the given password is ' +
        'ignored) and answers the same 201. Already a member of this tenant: 409 `already_member`.',
      params: TenantParams,
      body: CreateUserBody,
      response: withErrors({ 201: User }, [400, 401, 403, 404, 409]),
    },
    config: { auth: admin },
    handler: async (req, reply) => reply.code(201).send(await users.create(ctxOf(req), req.body)),
  });

  app.put('/t/:slug/users/:id', {
    schema: {
      tags: ['users'],
      summary: 'Update a user of the tenant',
      description:
        'A tenant admin cannot change a superadmin (403 `superadmin_account`), nor the name, email or password of someone ' +
        'who also belongs to another tenant (403 `shared_account`). A new password ends all of the person\'s sessions.',
      params: TenantIdParams,
      body: UpdateUserBody,
      response: withErrors({ 200: User }, [400, 401, 403, 404, 409]),
    },
    config: { auth: admin },
    handler: (req) => users.update(ctxOf(req), req.params.id, req.body),
  });

  app.delete('/t/:slug/users/:id', {
    schema: {
      tags: ['users'],
      summary: 'Remove a user from the tenant',
      description: 'A tenant admin cannot remove a superadmin (403 `superadmin_account`).',
      params: TenantIdParams,
      response: withErrors({ 200: Deleted }, [400, 401, 403, 404, 409]),
    },
    config: { auth: admin },
    handler: (req) => users.remove(ctxOf(req), req.params.id),
  });
}
