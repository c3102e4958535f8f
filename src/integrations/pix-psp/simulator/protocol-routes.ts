/**
 * The PSP's API Pix as a real one serves it (paths, scopes, bodies, RFC 7807 problems); the token endpoint
 * is the shared `oauthRoutes` (HTTP Basic only). Every call needs a bearer token with the route's scope:
 * 401 without a valid token, 403 without the scope.
 *
 *   PUT   /v2/cob/{txid}                      cob.write   201 the new charge; 200 the same one for the same body;
 *                                                         409 `CobOperacaoInvalida` for the txid with another body
 *   GET   /v2/cob/{txid}                      cob.read    the charge, with `pix` once paid; 404 `CobNaoEncontrado`
 *   PATCH /v2/cob/{txid}                      cob.write   `{ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }`; 400 when not ATIVA
 *   GET   /v2/pix/{e2eid}                     pix.read    a Pix received, with its `devolucoes`; 404 `PixNaoEncontrado`
 *   PUT   /v2/pix/{e2eid}/devolucao/{id}      pix.write   `{ valor }`: 201 the devolução (200 when replayed); 400 over
 *                                                         what is left, 404 unknown Pix, 409 the id with another valor
 *   GET   /v2/pix/{e2eid}/devolucao/{id}      pix.read
 *
 * The conflict of a repeated PUT is answered 409 (the API Pix leaves the status to the PSP; 409 lets the
 * client tell it from a malformed body). Bacen specifies the refund as PUT, which this follows.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenStore } from '../../simulator/oauth.js';
import { hide, objectBody } from '../../simulator/server.js';
import type { ChargeBook } from './charges.js';
import type { DevolucaoBook } from './devolucoes.js';
import { answer, PixSimError, replyProblem, viewCharge, viewPix } from './state.js';

type Params = { txid: string; e2eid: string; id: string };

export interface ApiPixRoutesDeps {
  tokens: TokenStore;
  charges: ChargeBook;
  devolucoes: DevolucaoBook;
}

export async function apiPixRoutes(app: FastifyInstance, { tokens, charges, devolucoes }: ApiPixRoutesDeps) {
  await app.register(async (api) => {
    /** Route options: hidden from OpenAPI, and the bearer token must carry `scope`. */
    const scoped = (scope: string) => ({
      ...hide,
      onRequest: async (req: FastifyRequest, reply: FastifyReply) => {
        const check = tokens.check(req.headers.authorization, scope);
        if (check === 'ok') return;
        const status = check === 'unauthorized' ? 401 : 403;
        const detail = check === 'unauthorized' ? 'Token de acesso inválido ou expirado.' : `O token não tem o escopo ${scope}.`;
        return replyProblem(reply, new PixSimError(status, 'AcessoNegado', 'Acesso Negado', detail));
      },
    });
    const pixFound = (e2eid: string) => {
      const pix = charges.pix(e2eid);
      if (!pix) throw new PixSimError(404, 'PixNaoEncontrado', 'Pix não encontrado.', `O Pix ${e2eid} não existe.`);
      return pix;
    };

    api.put<{ Params: Params }>('/v2/cob/:txid', scoped('cob.write'), async (req, reply) =>
      answer(reply, () => {
        const { charge, created } = charges.put(req.params.txid, objectBody(req));
        reply.code(created ? 201 : 200);
        return viewCharge(charge);
      }),
    );

    api.get<{ Params: Params }>('/v2/cob/:txid', scoped('cob.read'), async (req, reply) => answer(reply, () => viewCharge(charges.find(req.params.txid))));

    api.patch<{ Params: Params }>('/v2/cob/:txid', scoped('cob.write'), async (req, reply) =>
      answer(reply, () => viewCharge(charges.patch(req.params.txid, objectBody(req)))),
    );

    api.get<{ Params: Params }>('/v2/pix/:e2eid', scoped('pix.read'), async (req, reply) =>
      answer(reply, () => {
        const pix = pixFound(req.params.e2eid);
        const refunds = devolucoes.refundsOf(pix.endToEndId).map(devolucoes.view);
        return { ...viewPix(pix), ...(refunds.length ? { devolucoes: refunds } : {}) };
      }),
    );

    api.put<{ Params: Params }>('/v2/pix/:e2eid/devolucao/:id', scoped('pix.write'), async (req, reply) =>
      answer(reply, () => {
        const { e2eid, id } = req.params;
        const { devolucao, replayed } = devolucoes.request(e2eid, id, charges.refundable(e2eid), objectBody(req));
        reply.code(replayed ? 200 : 201);
        return devolucao;
      }),
    );

    api.get<{ Params: Params }>('/v2/pix/:e2eid/devolucao/:id', scoped('pix.read'), async (req, reply) =>
      answer(reply, () => {
        const r = devolucoes.find(pixFound(req.params.e2eid).endToEndId, req.params.id);
        if (!r) throw new PixSimError(404, 'DevolucaoNaoEncontrada', 'Devolução não encontrada.', `A devolução ${req.params.id} não existe.`);
        return devolucoes.view(r);
      }),
    );
  });
}
