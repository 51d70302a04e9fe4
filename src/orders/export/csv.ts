/**
 * CSV as spreadsheets read it (RFC 4180): cells separated by commas, lines by CRLF, a cell quoted when it holds a
 * comma, a quote, a line break or edge spaces, quotes doubled inside. A cell that a spreadsheet would run as a
 * formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, so a ticket id or
 * a name typed as `=HYPERLINK(…)` is shown as text, never evaluated (OWASP "CSV injection").
 */

export type CsvValue = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** One line, CRLF-terminated. */
export function csvLine(cells: readonly CsvValue[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
