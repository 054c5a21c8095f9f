/** How presets are shown: list rows and one preset as label/value pairs (its query as compact JSON). */
import type { Preset } from '../../../daemon/contract/presets.js';
import type { RecordData, TableData } from '../output/output.js';

/** Presets as a table: ID NAME DESCRIPTION QUERY UPDATED. */
export function presetsTable(presets: readonly Preset[]): TableData {
  return {
    headers: ['ID', 'NAME', 'DESCRIPTION', 'QUERY', 'UPDATED'],
    rows: presets.map((p) => [p.id, p.name, p.description, JSON.stringify(p.query), p.updated_at]),
  };
}

/** One preset (piped: one TSV row id, name, description, query, created, updated). */
export function presetRecord(p: Preset): RecordData {
  return {
    fields: [
      ['id', p.id],
      ['name', p.name],
      ['description', p.description],
      ['query', JSON.stringify(p.query)],
      ['created', p.created_at],
      ['updated', p.updated_at],
    ],
  };
}
