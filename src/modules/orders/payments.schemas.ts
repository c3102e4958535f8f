import { Type } from '@sinclair/typebox';
import { type PAYMENT_GATEWAYS, PAYMENT_METHODS } from '../../db/schema/orders.js';
import { Body, Nullable, StringEnum } from '../../platform/schemas.js';
import { CreateOrderBody } from './orders.schemas.js';

export const ProcessPaymentBody = Body({
  method: StringEnum(PAYMENT_METHODS),
  gateway: StringEnum(['mock', 'gateway_a'] as const satisfies readonly (typeof PAYMENT_GATEWAYS)[number][]),
  gatewayATerminalSerial: Type.Optional(Type.String({ pattern: '^T-[A-Za-z0-9][A-Za-z0-9._-]{0,62}$' })),
});

export const ProcessPaymentResult = Type.Union([
  Type.Object({ status: Type.Literal('approved'), transactionId: Type.String() }),
  Type.Object({ status: Type.Literal('processing'), intentId: Type.String(), message: Type.String() }),
]);

export const WebhookAck = Type.Object({ received: Type.Boolean() });

export const CheckoutConfig = Type.Object({ walletPublicKey: Nullable(Type.String()) });

const { paymentMethod: _ignored, customerEmail: _email, ...orderFields } = CreateOrderBody.properties;
export const WalletPaymentBody = Body({
  ...orderFields,
  customerEmail: Type.String({ format: 'email', maxLength: 254, description: 'payer e-mail, required by the wallet gateway' }),
  cardToken: Type.String({ minLength: 8, maxLength: 200, description: 'single-use card token from the wallet client SDK' }),
  installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  paymentMethodId: Type.Optional(Type.String({ maxLength: 40, description: 'card brand id from the SDK, e.g. visa, master' })),
});

export const TestCredentialsBody = Body({
  accessToken: Type.String({ minLength: 8, maxLength: 500 }),
  deviceId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const TestCredentialsResult = Type.Object({
  success: Type.Literal(true),
  deviceCount: Type.Integer(),
  device: Nullable(
    Type.Object({
      id: Type.String(),
      operatingMode: Nullable(Type.String()),
      posId: Nullable(Type.String()),
      storeId: Nullable(Type.String()),
      externalPosId: Nullable(Type.String()),
    }),
  ),
});
