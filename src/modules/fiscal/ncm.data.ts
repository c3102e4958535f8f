import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The NCM table (Siscomex "Nomenclatura Comum do Mercosul", JSON export) and the data migration that loads it
 * into `ncm_codes` (src/db/migrations/0021_ncm_data.sql).
 *
 *   npx tsx src/modules/fiscal/ncm.data.ts <siscomex.json>   copies the table into ncm-siscomex.json.gz, then writes 0021
 *   npx tsx src/modules/fiscal/ncm.data.ts                   writes 0021 again from ncm-siscomex.json.gz
 *
 * A new table (a new Siscomex release) goes in as a new migration, never by editing 0021 once it has landed.
 */

export const NCM_DATA_FILE = fileURLToPath(new URL('./ncm-siscomex.json.gz', import.meta.url));
export const NCM_MIGRATION_FILE = fileURLToPath(new URL('../../db/migrations/0021_ncm_data.sql', import.meta.url));

/** The compact copy kept in the project: the release and `[display code, description]` per row. */
export interface NcmTable {
  release: string;
  act: string;
  rows: [string, string][];
}

export interface NcmRow {
  code: string;
  display: string;
  description: string;
  searchText: string;
  category: string;
}

/**
 * Everyday names the official descriptions never use, added to the searched text of the codes a restaurant
 * usually classifies them under (a search aid, not fiscal advice: the accountant confirms the code).
 */
export const NCM_ALIASES: Record<string, string> = {
  '2202.10.00': 'refrigerante refrigerantes soda agua tonica agua com gas aromatizada',
  '2202.99.00': 'refrigerante bebida isotonica energetico cha gelado bebida nao alcoolica',
  '2201.10.00': 'agua mineral agua com gas',
  '2203.00.00': 'cerveja chope chopp',
  '2009.89.90': 'suco de fruta suco natural',
  '2009.12.00': 'suco de laranja',
  '1905.90.90': 'pao frances pao de sal pao careca salgado assado pizza',
  '1905.90.10': 'pao de forma pao de sanduiche',
  '2105.00.10': 'sorvete picole gelato',
  '0901.21.00': 'cafe torrado cafe em po',
  '2101.11.10': 'cafe soluvel',
  '2106.90.90': 'lanche salgado frito preparacao alimenticia refeicao',
  '1602.50.00': 'hamburguer carne bovina preparada',
  '2208.40.00': 'cachaca rum',
  '2204.21.00': 'vinho taca de vinho',
  // Headings: their names reach every code under them.
  '0207.1': 'frango galinha',
  '0207.14.11': 'peito de frango',
  '0207.14.12': 'coxa e sobrecoxa de frango',
  '0207.14.13': 'asa de frango asinha',
  '0207.14.22': 'file de peito de frango',
  '1602.32': 'frango empanado nuggets frango preparado',
  '0201.30.00': 'carne bovina picanha alcatra contra file file mignon maminha fraldinha',
  '02.03': 'carne suina carne de porco',
  '1006.30': 'arroz branco arroz polido',
  '0713.33': 'feijao feijao preto feijao carioca',
  '0407.21.00': 'ovos de galinha ovo',
  '1701.99.00': 'acucar refinado acucar cristal',
  '1507.90.11': 'oleo de soja',
  '1101.00.10': 'farinha de trigo',
  '0701.90.00': 'batata inglesa',
  '0703.10.19': 'cebola',
  '0406.10.10': 'queijo mussarela mucarela',
  '1902.19.00': 'macarrao massa seca espaguete',
  '1601.00.00': 'linguica salsicha embutido',
  '2103.20.10': 'ketchup molho de tomate',
};

/** Lower case, accents and marks removed, punctuation to spaces, spaces collapsed: what searches compare. */
export function searchable(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/<[^>]*>/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The published description without markup and the leading dashes of its level ("-- Outras" -> "Outras"). */
export function cleanDescription(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/^[\s\-–]+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Rows of `ncm_codes`: the searched text is the code's own description and aliases, ` | `, the descriptions of
 * the codes above it, nearest first (the heading's text is what makes "-- Outras" findable), ` | `, the everyday
 * names (aliases) of the code and of its headings (what a search on "frango" or "refrigerante" ranks first); the
 * chapter's description is its category.
 */
export function ncmRows(table: NcmTable): NcmRow[] {
  const described = new Map<string, { display: string; description: string }>();
  for (const [display, raw] of table.rows) described.set(display.replace(/\D/g, ''), { display, description: cleanDescription(raw) });
  const rows: NcmRow[] = [];
  for (const [code, { display, description }] of described) {
    const chain = [description];
    const aliases = [NCM_ALIASES[display] ?? ''];
    for (let len = code.length - 1; len >= 2; len--) {
      const parent = described.get(code.slice(0, len));
      if (parent) {
        chain.push(parent.description);
        aliases.push(NCM_ALIASES[parent.display] ?? '');
      }
    }
    const chapter = described.get(code.slice(0, 2));
    if (!chapter) throw new Error(`NCM ${display} has no chapter`);
    const own = searchable(`${description} ${NCM_ALIASES[display] ?? ''}`);
    const above = searchable(chain.slice(1).join(' '));
    // Three parts: own description and aliases | the headings above | every everyday name of the code and its headings.
    rows.push({ code, display, description, searchText: `${own} | ${above} | ${searchable(aliases.join(' '))}`, category: chapter.description });
  }
  return rows;
}

const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** The data migration: the table emptied and loaded again, in statements of 500 rows. */
export function ncmMigrationSql(table: NcmTable): string {
  const rows = ncmRows(table);
  const parts = [
    `-- NCM table (Siscomex, ${table.release}, ${table.act}): ${rows.length} codes. Generated by src/modules/fiscal/ncm.data.ts; do not edit.
DELETE FROM "ncm_codes";`,
  ];
  for (let i = 0; i < rows.length; i += 500) {
    const values = rows
      .slice(i, i + 500)
      .map((r) => `(${[r.code, r.display, r.description, r.searchText, r.category].map(literal).join(', ')})`)
      .join(',\n');
    parts.push(`INSERT INTO "ncm_codes" ("code", "display", "description", "search_text", "category") VALUES\n${values};`);
  }
  return `${parts.join('--> statement-breakpoint\n')}\n`;
}

export function readNcmTable(file = NCM_DATA_FILE): NcmTable {
  return JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as NcmTable;
}

/** The Siscomex JSON export (`{ Data_Ultima_Atualizacao_NCM, Ato, Nomenclaturas: [{ Codigo, Descricao }] }`) made compact. */
export function fromSiscomex(json: string): NcmTable {
  const source = JSON.parse(json) as { Data_Ultima_Atualizacao_NCM: string; Ato: string; Nomenclaturas: { Codigo: string; Descricao: string }[] };
  return {
    release: source.Data_Ultima_Atualizacao_NCM,
    act: source.Ato,
    rows: source.Nomenclaturas.map((n) => [n.Codigo, n.Descricao]),
  };
}

function main(source?: string) {
  if (source) writeFileSync(NCM_DATA_FILE, gzipSync(JSON.stringify(fromSiscomex(readFileSync(source, 'utf8'))), { level: 9 }));
  const table = readNcmTable();
  writeFileSync(NCM_MIGRATION_FILE, ncmMigrationSql(table));
  console.log(`${table.rows.length} NCM codes (${table.release}) written to ${NCM_MIGRATION_FILE}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv[2]);
