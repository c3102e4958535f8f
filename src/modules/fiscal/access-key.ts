/**
 * The NF-e / NFC-e access key ("chave de acesso", 44 digits): cUF (2), AAMM of the emission (4), the
 * emitter's CNPJ (14), model (2), series (3), number (9), emission type (1, 1 = normal), a random code cNF
 * (8) and the check digit (1): mod 11 with weights 2 to 9 from the right, 0 when the remainder is 0 or 1.
 */
import { randomInt } from 'node:crypto';

/** IBGE codes of the states (cUF). */
export const UF_CODES: Record<string, string> = {
  RO: '11', AC: '12', AM: '13', RR: '14', PA: '15', AP: '16', TO: '17',
  MA: '21', PI: '22', CE: '23', RN: '24', PB: '25', PE: '26', AL: '27', SE: '28', BA: '29',
  MG: '31', ES: '32', RJ: '33', SP: '35', PR: '41', SC: '42', RS: '43', MS: '50', MT: '51', GO: '52', DF: '53',
};

export function accessKeyCheckDigit(first43: string): number {
  if (!/^\d{43}$/.test(first43)) throw new Error('access key: 43 digits expected');
  let sum = 0;
  let weight = 2;
  for (let i = 42; i >= 0; i--) {
    sum += Number(first43[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function isValidAccessKey(key: string): boolean {
  return /^\d{44}$/.test(key) && accessKeyCheckDigit(key.slice(0, 43)) === Number(key[43]);
}

export interface AccessKeyParts {
  cUF: string;
  /** The emission date-time in the tenant's local time: `YYYY-MM-...`. */
  emittedAtLocal: string;
  cnpj: string;
  model: 55 | 65;
  series: number;
  number: number;
  /** 8 digits; random when omitted. Never equal to the number (the authority rejects it). */
  cNF?: string;
}

export function buildAccessKey(p: AccessKeyParts): { key: string; cNF: string; cDV: number } {
  let cNF = p.cNF ?? String(randomInt(0, 100_000_000)).padStart(8, '0');
  while (Number(cNF) === p.number) cNF = String(randomInt(0, 100_000_000)).padStart(8, '0');
  const aamm = p.emittedAtLocal.slice(2, 4) + p.emittedAtLocal.slice(5, 7);
  const first = `${p.cUF}${aamm}${p.cnpj}${p.model}${String(p.series).padStart(3, '0')}${String(p.number).padStart(9, '0')}1${cNF}`;
  const cDV = accessKeyCheckDigit(first);
  return { key: first + cDV, cNF, cDV };
}
