/**
 * Every text of the kitchen display, in one object per language (pt-BR only for now). Add a language
 * by adding an object of the same shape and choosing it in `strings` below.
 */
const ptBR = {
  title: 'Cozinha',
  pageTitle: (tenant: string) => `Cozinha · ${tenant}`,
  loading: 'Carregando…',
  tenantNotFound: 'Estabelecimento não encontrado. Confira o endereço.',
  loadFailed: 'Não foi possível carregar a página. Tente novamente.',
  retry: 'Tentar novamente',
  kitchenUnavailable: 'O painel da cozinha é para restaurantes. Este estabelecimento não usa a cozinha.',

  // Login
  loginHeading: 'Entrar no painel da cozinha',
  email: 'E-mail',
  password: 'Senha',
  loginButton: 'Entrar',
  loggingIn: 'Entrando…',
  fillBoth: 'Preencha o e-mail e a senha.',
  badCredentials: 'E-mail ou senha incorretos.',
  loginFailed: 'Não foi possível entrar. Tente novamente.',
  tooManyAttempts: 'Muitas tentativas. Aguarde um pouco e tente de novo.',
  notMember: 'Sua conta não tem acesso a este estabelecimento.',
  wrongRole: 'Sua função neste estabelecimento não dá acesso ao painel da cozinha (apenas administrador, gerente de filial ou equipe).',
  inactiveTenant: 'Este estabelecimento está inativo.',
  sessionEnded: 'Sua sessão terminou. Entre novamente.',
  logout: 'Sair',
  loggedInAs: (name: string) => `Conectado como ${name}`,

  // Header
  station: 'Estação',
  stations: { kitchen: 'Cozinha', bar: 'Bar', desserts: 'Sobremesas' },
  soundOn: 'Som ativado',
  soundOff: 'Ativar som',
  connected: 'Conectado',
  reconnecting: 'Reconectando…',

  // Board
  columns: { pending: 'Novos', confirmed: 'Confirmados', preparing: 'Em preparo', ready: 'Prontos' },
  columnCount: (n: number) => (n === 1 ? '1 pedido' : `${n} pedidos`),
  emptyColumn: 'Nenhum pedido',
  order: (num: string) => `Pedido ${num}`,
  table: (n: number) => `Mesa ${n}`,
  takeout: 'Para viagem',
  dineIn: 'No local',
  notes: 'Obs.',
  allergens: 'Alérgenos',
  minutes: (m: number) => `${m} min`,
  elapsed: (m: number, expected: number) => `${m} de ${expected} min`,
  late: 'Atrasado',
  almostLate: 'Quase no tempo',
  bump: { pending: 'Confirmar', confirmed: 'Iniciar preparo', preparing: 'Pronto', ready: 'Entregue' },
  bumpLabel: (num: string, action: string) => `${action}: pedido ${num}`,
  recall: 'Voltar',
  recallLabel: (num: string, to: string) => `Voltar o pedido ${num} para ${to}`,
  moving: 'Atualizando…',

  // Announcements and toasts
  newOrder: (num: string) => `Novo pedido ${num}`,
  moved: (num: string, to: string) => `Pedido ${num}: ${to}`,
  delivered: 'Entregue',
  statusFailed: (num: string, message: string) => `Não foi possível atualizar o pedido ${num}: ${message}`,
  listFailed: 'Não foi possível atualizar a lista de pedidos.',
  liveFailed: (message: string) => `Atualização ao vivo indisponível: ${message}`,
  liveRetry: 'tentando de novo na próxima reconexão',
  networkError: 'sem conexão com o servidor',
  conflictError: 'o pedido já mudou em outra tela',
  forbiddenError: 'sem permissão',
  notFoundError: 'pedido não encontrado',
  serverError: (status: number) => `erro do servidor (${status})`,
  dismiss: 'Fechar aviso',
};

export type Strings = typeof ptBR;
export const strings: Strings = ptBR;
