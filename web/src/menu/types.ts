/** The API shapes the menu page reads (see src/modules/menu, orders and storefront schemas). */

export interface Storefront {
  tenant: { slug: string; name: string; primaryColor: string | null; businessType: string; kitchenEnabled: boolean; timezone: string };
  pdv: { id: string; slug: string; name: string } | null;
  table: { id: string; number: number } | null;
  walletPublicKey: string | null;
  /** Where the browser makes the wallet's card token (`POST ?public_key=`); null without a wallet. */
  walletTokenUrl: string | null;
  serviceChargePercent: number | null;
}

export interface Category {
  _id: string;
  name: string;
  order: number;
}

export interface MenuItem {
  _id: string;
  name: string;
  description: string;
  /** Cents; per kilogram when unit is kg. */
  price: number;
  unit: 'un' | 'kg';
  category: string;
  allergens: string[];
  modifierGroupIds: string[];
}

export interface ModifierOption {
  name: string;
  priceAdjustment: number;
  isDefault: boolean;
  available: boolean;
}

export interface ModifierGroup {
  _id: string;
  name: string;
  description: string;
  type: 'single' | 'multiple';
  required: boolean;
  minSelections: number;
  maxSelections: number;
  options: ModifierOption[];
}

export type PaymentChoice = 'pix' | 'card' | 'cash' | 'wallet';
export type OrderType = 'dine_in' | 'takeout';

export interface CheckoutOrder {
  orderNumber: string;
  status: string;
  total: number;
  paymentMethod: string | null;
  pixPayload: string | null;
  pixQrCodeBase64: string | null;
  paymentStatus: string | null;
}

export interface TrackedOrder {
  orderNumber: string;
  status: string;
  type?: OrderType;
  items?: { name: string; quantity: number; price: number }[];
  /** Cents of service charge included in the total. */
  serviceCharge?: number;
  total?: number;
  paymentStatus?: string | null;
  createdAt: string;
  updatedAt: string;
}
