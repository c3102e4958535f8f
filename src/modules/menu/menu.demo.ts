import type { Station } from '../../db/schema/menu.js';
import type { TenantDb } from '../../db/scopes.js';
import type { MenuService } from './menu.service.js';

type DemoItem = [name: string, description: string, priceCents: number, minutes: number, allergens: string[], groups?: ('ponto' | 'acompanhamento' | 'adicionais')[], available?: boolean];

/** A Brazilian restaurant menu: 6 categories, 37 items priced in BRL cents, allergens, 3 modifier groups; drinks on the bar, desserts on their station. */
const MENU: { category: string; station?: Station; items: DemoItem[] }[] = [
  {
    category: 'Entradas',
    items: [
      ['Pão de queijo (8 unidades)', 'Pão de queijo mineiro assado na hora', 2490, 10, ['lactose', 'ovo']],
      ['Coxinha de frango (6 unidades)', 'Coxinha cremosa de frango com catupiry', 3290, 15, ['glúten', 'lactose']],
      ['Pastel de carne (4 unidades)', 'Pastel de feira recheado com carne moída temperada', 2990, 12, ['glúten']],
      ['Bolinho de bacalhau (6 unidades)', 'Bolinho de bacalhau português com azeite e salsa', 4290, 15, ['peixe', 'glúten', 'ovo']],
      ['Mandioca frita com parmesão', 'Aipim frito crocante polvilhado com queijo parmesão', 2690, 12, ['lactose']],
      ['Caldinho de feijão', 'Caldinho de feijão preto com bacon e cheiro-verde', 1890, 5, []],
    ],
  },
  {
    category: 'Pratos principais',
    items: [
      ['Feijoada completa', 'Feijoada com arroz, couve refogada, farofa, torresmo e laranja', 6990, 20, []],
      ['Moqueca de peixe', 'Moqueca baiana de peixe com leite de coco e dendê, arroz e pirão', 8990, 35, ['peixe']],
      ['Moqueca de camarão', 'Moqueca de camarão com leite de coco e dendê, arroz e pirão', 10990, 35, ['crustáceos']],
      ['Bobó de camarão', 'Camarão em creme de mandioca com leite de coco e arroz branco', 9490, 30, ['crustáceos'], [], false],
      ['Frango à parmegiana', 'Filé de frango empanado com molho de tomate e muçarela, arroz e fritas', 5890, 25, ['glúten', 'lactose', 'ovo']],
      ['Strogonoff de carne', 'Strogonoff de filé mignon com arroz branco e batata palha', 5490, 20, ['lactose']],
      ['Baião de dois com carne de sol', 'Arroz com feijão-de-corda, queijo coalho e carne de sol acebolada', 6490, 25, ['lactose']],
      ['Escondidinho de carne seca', 'Purê de mandioca gratinado recheado com carne seca desfiada', 4990, 25, ['lactose']],
    ],
  },
  {
    category: 'Grelhados',
    items: [
      ['Picanha na chapa (400 g)', 'Picanha grelhada servida na chapa com vinagrete', 11990, 30, [], ['ponto', 'acompanhamento', 'adicionais']],
      ['Fraldinha grelhada', 'Fraldinha na brasa com chimichurri da casa', 7990, 25, [], ['ponto', 'acompanhamento', 'adicionais']],
      ['Contrafilé acebolado', 'Contrafilé grelhado coberto com cebola dourada', 6990, 25, [], ['ponto', 'acompanhamento', 'adicionais']],
      ['Costela no bafo', 'Costela bovina assada lentamente por 8 horas', 7490, 30, [], ['acompanhamento']],
      ['Hambúrguer artesanal da casa', 'Blend de 180 g no pão brioche com queijo prato, alface e tomate', 4290, 20, ['glúten', 'lactose', 'ovo'], ['ponto', 'adicionais']],
      ['Linguiça toscana grelhada', 'Linguiça toscana na brasa com cebola e pão de alho', 3990, 20, ['glúten'], ['acompanhamento']],
      ['Tilápia grelhada', 'Filé de tilápia grelhado com legumes salteados', 5990, 25, ['peixe'], ['acompanhamento']],
    ],
  },
  {
    category: 'Sobremesas',
    station: 'desserts',
    items: [
      ['Pudim de leite condensado', 'Pudim de leite condensado com calda de caramelo', 1690, 5, ['lactose', 'ovo']],
      ['Brigadeiro de colher', 'Brigadeiro cremoso servido na tigela', 1490, 5, ['lactose']],
      ['Romeu e Julieta', 'Queijo minas frescal com goiabada cascão', 1590, 5, ['lactose']],
      ['Mousse de maracujá', 'Mousse aerada de maracujá com calda da fruta', 1490, 5, ['lactose']],
      ['Petit gâteau com sorvete', 'Bolinho de chocolate com recheio cremoso e sorvete de creme', 2890, 15, ['glúten', 'lactose', 'ovo']],
      ['Açaí na tigela (500 ml)', 'Açaí batido com banana, granola e mel', 2490, 8, ['glúten', 'castanhas']],
    ],
  },
  {
    category: 'Bebidas',
    station: 'bar',
    items: [
      ['Suco natural de laranja (500 ml)', 'Laranja espremida na hora', 1290, 5, []],
      ['Suco de maracujá (500 ml)', 'Suco natural de maracujá', 1290, 5, []],
      ['Guaraná (lata 350 ml)', 'Refrigerante de guaraná gelado', 690, 1, []],
      ['Água mineral sem gás (500 ml)', 'Água mineral natural', 490, 1, []],
      ['Água de coco (300 ml)', 'Água de coco natural', 890, 1, []],
      ['Café expresso', 'Café espresso de grãos do sul de Minas', 690, 3, []],
    ],
  },
  {
    category: 'Cervejas e drinks',
    station: 'bar',
    items: [
      ['Caipirinha de limão', 'Cachaça artesanal, limão taiti, açúcar e gelo', 2490, 5, []],
      ['Caipiroska de morango', 'Vodka, morangos frescos, açúcar e gelo', 2690, 5, []],
      ['Chope pilsen (300 ml)', 'Chope claro bem tirado', 1290, 2, ['glúten']],
      ['Cerveja pilsen (garrafa 600 ml)', 'Cerveja pilsen nacional', 1690, 1, ['glúten']],
    ],
  },
];

/** Fills a tenant's menu with the demo data; returns how much was created. */
export async function seedDemoMenu(menu: MenuService, t: TenantDb) {
  const groups = {
    ponto: await menu.createGroup(t, {
      name: 'Ponto da carne',
      description: 'Como você prefere a sua carne?',
      type: 'single',
      required: true,
      options: [
        { name: 'Mal passada' },
        { name: 'Ao ponto para mal' },
        { name: 'Ao ponto', isDefault: true },
        { name: 'Ao ponto para bem' },
        { name: 'Bem passada' },
      ],
    }),
    acompanhamento: await menu.createGroup(t, {
      name: 'Acompanhamento',
      description: 'Escolha um acompanhamento',
      type: 'single',
      required: true,
      options: [
        { name: 'Arroz branco', isDefault: true },
        { name: 'Batata frita' },
        { name: 'Purê de batata', priceAdjustment: 300 },
        { name: 'Salada verde' },
        { name: 'Mandioca cozida' },
      ],
    }),
    adicionais: await menu.createGroup(t, {
      name: 'Adicionais',
      description: 'Turbine o seu prato (até 3)',
      type: 'multiple',
      required: false,
      maxSelections: 3,
      options: [
        { name: 'Bacon', priceAdjustment: 600 },
        { name: 'Queijo coalho', priceAdjustment: 700 },
        { name: 'Ovo frito', priceAdjustment: 300 },
        { name: 'Farofa da casa', priceAdjustment: 400 },
        { name: 'Vinagrete extra', priceAdjustment: 250 },
      ],
    }),
  };
  let items = 0;
  for (const [order, section] of MENU.entries()) {
    const category = await menu.createCategory(t, { name: section.category, order: (order + 1) * 10 });
    for (const [name, description, price, preparationTime, allergens, groupNames = [], isAvailable = true] of section.items) {
      await menu.createItem(t, {
        name,
        description,
        price,
        category: category._id,
        preparationTime,
        station: section.station ?? 'kitchen',
        allergens,
        isAvailable,
        modifierGroupIds: groupNames.map((g) => groups[g]._id),
      });
      items++;
    }
  }
  return { categories: MENU.length, items, modifierGroups: Object.keys(groups).length };
}
