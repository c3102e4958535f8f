/**
 * The API's validation messages are English (JSON Schema's wording: `must NOT have fewer than 1
 * characters`); the pages speak pt-BR. The common ones are said again in Portuguese; anything else is
 * shown as the API wrote it.
 */
const RULES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^must NOT have fewer than 1 characters?$/, () => 'Preencha este campo.'],
  [/^must NOT have fewer than (\d+) characters$/, (m) => `Use pelo menos ${m[1]} caracteres.`],
  [/^must NOT have more than (\d+) characters$/, (m) => `Use no máximo ${m[1]} caracteres.`],
  [/^must NOT have fewer than (\d+) items$/, (m) => `Inclua pelo menos ${m[1]} ${m[1] === '1' ? 'item' : 'itens'}.`],
  [/^must NOT have more than (\d+) items$/, (m) => `Inclua no máximo ${m[1]} itens.`],
  [/^must be >= (\S+)$/, (m) => `Use um valor a partir de ${m[1]}.`],
  [/^must be > (\S+)$/, (m) => `Use um valor maior que ${m[1]}.`],
  [/^must be <= (\S+)$/, (m) => `Use um valor até ${m[1]}.`],
  [/^must be < (\S+)$/, (m) => `Use um valor menor que ${m[1]}.`],
  [/^must be integer$/, () => 'Use um número inteiro.'],
  [/^must be number$/, () => 'Informe um número.'],
  [/^must be multiple of/, () => 'Use no máximo duas casas decimais.'],
  [/^must have required property/, () => 'Preencha este campo.'],
  [/^must match format "email"$/, () => 'Informe um e-mail válido.'],
  [/^must be a real date/, () => 'Informe uma data válida.'],
  [/^must match pattern/, () => 'Formato inválido.'],
  [/^must be equal to one of the allowed values: (.+)$/, (m) => `Escolha um destes valores: ${m[1]}.`],
  [/^is not a known field$/, () => 'Campo não reconhecido.'],
];

/** The Portuguese of a validation message the pages know; the message itself otherwise. */
export function inPortuguese(message: string): string {
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(message);
    if (m) return say(m);
  }
  return message;
}
