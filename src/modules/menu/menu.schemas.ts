import { Type, type Static } from '@sinclair/typebox';
import { QUANTITY_UNITS, STOCK_UNITS } from '../../db/schema/inventory.js';
import { KITCHEN_STATIONS, MENU_UNITS, MODIFIER_GROUP_TYPES } from '../../db/schema/menu.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** Highest price a menu item may have: R$ 100.000,00. */
export const MAX_PRICE_CENTS = 10_000_000;
export const MAX_OPTIONS = 50;

const Name = Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' });
const Description = Type.String({ maxLength: 2000 });
const Cents = Type.Integer({ minimum: 0, maximum: MAX_PRICE_CENTS, description: 'integer cents (BRL), never negative' });
const Minutes = Type.Integer({ minimum: 0, maximum: 1440, description: 'minutes' });
const Allergen = Type.String({ minLength: 1, maxLength: 60, pattern: '\\S' });
const STATION_DESCRIPTION = 'where the item is prepared: kitchen, bar or desserts (the kitchen screen filters by it)';
const UNIT_DESCRIPTION = 'un: sold by the unit; kg: price is per kilogram and orders take quantities in kg to 3 decimals';

// ---- categories

export const MenuCategory = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    order: Type.Integer(),
    isActive: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'MenuCategory' },
);

export const CreateCategoryBody = Body({
  name: Name,
  order: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: 'position on the menu, lowest first; default 0' })),
  isActive: Type.Optional(Type.Boolean({ description: 'default true' })),
});

export const UpdateCategoryBody = Body({
  name: Type.Optional(Name),
  order: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  isActive: Type.Optional(Type.Boolean()),
});

// ---- modifier groups

export const ModifierOption = Type.Object({
  name: Type.String(),
  priceAdjustment: Type.Integer({ description: 'integer cents added to the item price' }),
  isDefault: Type.Boolean(),
  available: Type.Boolean(),
});

export const ModifierGroup = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    type: StringEnum(MODIFIER_GROUP_TYPES),
    required: Type.Boolean(),
    minSelections: Type.Integer(),
    maxSelections: Type.Integer(),
    options: Type.Array(ModifierOption),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ModifierGroup' },
);

const OptionBody = Body({
  name: Type.String({ minLength: 1, maxLength: 80, pattern: '\\S' }),
  priceAdjustment: Type.Optional(
    Type.Integer({
      minimum: -MAX_PRICE_CENTS,
      maximum: MAX_PRICE_CENTS,
      description: 'integer cents added to the item price; negative lowers it ("meia porção"), a line never goes below 0; default 0',
    }),
  ),
  isDefault: Type.Optional(Type.Boolean({ description: 'default false' })),
  available: Type.Optional(Type.Boolean({ description: 'default true' })),
});
const Options = Type.Array(OptionBody, { minItems: 1, maxItems: MAX_OPTIONS });
const Selections = (min: number) => Type.Integer({ minimum: min, maximum: MAX_OPTIONS });

export const CreateModifierGroupBody = Body({
  name: Name,
  description: Type.Optional(Description),
  type: StringEnum(MODIFIER_GROUP_TYPES, { description: '`single` (radio) or `multiple` (checkboxes)' }),
  required: Type.Optional(Type.Boolean({ description: 'default false' })),
  minSelections: Type.Optional(Selections(0)),
  maxSelections: Type.Optional(Selections(1)),
  options: Options,
});

export const UpdateModifierGroupBody = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  type: Type.Optional(StringEnum(MODIFIER_GROUP_TYPES)),
  required: Type.Optional(Type.Boolean()),
  minSelections: Type.Optional(Selections(0)),
  maxSelections: Type.Optional(Selections(1)),
  options: Type.Optional(Options),
});

// ---- items

const menuItemFields = {
  _id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  price: Type.Integer({ description: 'integer cents (BRL); per kilogram when unit is kg' }),
  unit: StringEnum(MENU_UNITS, { description: UNIT_DESCRIPTION }),
  category: Type.String({ description: 'category id' }),
  preparationTime: Nullable(Type.Integer(), { description: 'minutes' }),
  order: Type.Integer({ description: 'place within its category (then by name); 0 by default' }),
  station: StringEnum(KITCHEN_STATIONS, { description: STATION_DESCRIPTION }),
  isAvailable: Type.Boolean(),
  isActive: Type.Boolean(),
  allergens: Type.Array(Type.String()),
  modifierGroupIds: Type.Array(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const MenuItem = Type.Object(menuItemFields, { $id: 'MenuItem' });

/** The fiscal fields of an item, on the admin's views only (never the public menu's). */
const Ncm = Type.String({ pattern: '^[0-9]{8}$', description: 'NCM, 8 digits without dots (fiscal documents use 21069090 when unset)' });
const Cfop = Type.String({ pattern: '^[567][0-9]{3}$', description: 'CFOP of the sale, 4 digits starting 5, 6 or 7 (default 5102)' });
const Cest = Type.String({ pattern: '^[0-9]{7}$', description: 'CEST, 7 digits (items under tax substitution)' });
const TaxCode = Type.String({ pattern: '^[0-9]{2,3}$', description: 'CSOSN under the Simples Nacional (3 digits, default 102) or CST ICMS (2 digits, default 00)' });
const ExternalCode = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f]+$' });
const ExternalCodes = (description: string) =>
  Type.Object(
    { provider_a: Type.Optional(ExternalCode), provider_b: Type.Optional(ExternalCode), provider_c: Type.Optional(ExternalCode) },
    { additionalProperties: false, description },
  );
const itemFiscalFields = {
  ncm: Nullable(Type.String()),
  cfop: Nullable(Type.String()),
  cest: Nullable(Type.String()),
  taxCode: Nullable(Type.String()),
  externalCodes: ExternalCodes('The item\'s code at each delivery platform: how their orders name it'),
};
const itemFiscalInput = {
  ncm: Type.Optional(Nullable(Ncm)),
  cfop: Type.Optional(Nullable(Cfop)),
  cest: Type.Optional(Nullable(Cest)),
  taxCode: Type.Optional(Nullable(TaxCode)),
  externalCodes: Type.Optional(ExternalCodes('The item\'s code at each delivery platform (replaces the whole map; {} clears it)')),
};

/** An item as the admin sees it: with its fiscal fields (null: the fiscal documents' defaults apply). */
export const AdminMenuItem = Type.Object({ ...menuItemFields, ...itemFiscalFields }, { description: 'MenuItem with its fiscal fields and delivery-platform codes' });

/**
 * The recipe of an item (the inventory's ingredients) as the public detail shows it as `bom`: what goes
 * into the dish, never what it costs (costs are the restaurant's business, not its guests').
 */
export const MenuBom = Type.Object({
  ingredients: Type.Array(
    Type.Object({
      inventoryItem: Type.Object({ _id: Type.String(), name: Type.String(), sku: Type.String(), unit: StringEnum(STOCK_UNITS) }),
      quantityPerUnit: Type.Number({ description: 'per unit (or kg, for an item sold by weight) of the menu item, in `unit`; 3 decimals' }),
      unit: StringEnum(QUANTITY_UNITS),
    }),
  ),
});

export const MenuItemDetail = Type.Object(
  {
    ...menuItemFields,
    variations: Type.Array(Type.Object(ModifierGroup.properties), { description: 'the modifier groups of the item, expanded, in order' }),
    bom: Nullable(MenuBom, { description: 'the recipe of the item (inventory ingredients, without costs); null when it has none' }),
  },
  { $id: 'MenuItemDetail' },
);

const GroupIds = Type.Array(Id, { maxItems: 20, uniqueItems: true, description: 'modifier groups of this tenant, in display order' });
const Allergens = Type.Array(Allergen, { maxItems: 30, uniqueItems: true, description: 'e.g. gluten, lactose, nuts' });

const ItemOrder = Type.Integer({ minimum: 0, maximum: 100_000, description: 'place within its category (then by name)' });

export const CreateItemBody = Body({
  name: Name,
  description: Type.Optional(Description),
  price: Cents,
  unit: Type.Optional(StringEnum(MENU_UNITS, { description: UNIT_DESCRIPTION })),
  category: Id,
  preparationTime: Type.Optional(Minutes),
  order: Type.Optional(ItemOrder),
  station: Type.Optional(StringEnum(KITCHEN_STATIONS, { description: `${STATION_DESCRIPTION}; default kitchen` })),
  isAvailable: Type.Optional(Type.Boolean({ description: 'default true' })),
  isActive: Type.Optional(Type.Boolean({ description: 'default true' })),
  allergens: Type.Optional(Allergens),
  modifierGroupIds: Type.Optional(GroupIds),
  ...itemFiscalInput,
});

export const UpdateItemBody = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  price: Type.Optional(Cents),
  unit: Type.Optional(StringEnum(MENU_UNITS, { description: UNIT_DESCRIPTION })),
  category: Type.Optional(Id),
  preparationTime: Type.Optional(Nullable(Minutes)),
  order: Type.Optional(ItemOrder),
  station: Type.Optional(StringEnum(KITCHEN_STATIONS, { description: STATION_DESCRIPTION })),
  isAvailable: Type.Optional(Type.Boolean()),
  isActive: Type.Optional(Type.Boolean()),
  allergens: Type.Optional(Allergens),
  modifierGroupIds: Type.Optional(GroupIds),
  ...itemFiscalInput,
});

export const PublicItemsQuery = Type.Object({
  category: Type.Optional(Id),
});

/**
 * Menu items: hundreds for a restaurant, a few thousand for a market. Sorted in code with a locale collator, so a page
 * is cut after the sort (slicePage). The panel expects the whole menu: the default is the maximum.
 */
export const MENU_ITEMS_PAGE = pageLimits({ default: 1000, maximum: 1000, what: 'items' });

export const AdminItemsQuery = Type.Object({
  category: Type.Optional(Id),
  isAvailable: Type.Optional(Type.Boolean()),
  isActive: Type.Optional(Type.Boolean()),
  ...pageQuery(MENU_ITEMS_PAGE),
});

export const Deleted = Type.Object({ deleted: Type.Boolean() });

export type CategoryView = Static<typeof MenuCategory>;
export type CreateCategoryInput = Static<typeof CreateCategoryBody>;
export type UpdateCategoryInput = Static<typeof UpdateCategoryBody>;
export type ModifierGroupView = Static<typeof ModifierGroup>;
export type CreateModifierGroupInput = Static<typeof CreateModifierGroupBody>;
export type UpdateModifierGroupInput = Static<typeof UpdateModifierGroupBody>;
export type MenuItemView = Static<typeof MenuItem>;
export type AdminMenuItemView = Static<typeof AdminMenuItem>;
export type MenuBomView = Static<typeof MenuBom>;
export type MenuItemDetailView = MenuItemView & { variations: ModifierGroupView[]; bom: MenuBomView | null };
export type CreateItemInput = Static<typeof CreateItemBody>;
export type UpdateItemInput = Static<typeof UpdateItemBody>;
export type AdminItemsFilter = Static<typeof AdminItemsQuery>;
