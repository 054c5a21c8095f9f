/** `stockscreen sources`: every data source's status. */
import type { Command } from 'commander';
import { listSources, sourcesTable } from '../../services/sources/sources.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action } from '../shared.js';

/** Make the `sources` group itself list the sources (admin only). */
export function register(parent: Command, ctx: CliContext): void {
  parent.action(
    action(ctx, async (session) => {
      const res = await listSources(session);
      printTable(session, res.body, sourcesTable(res.data));
      if (session.out.mode !== 'json') for (const s of res.data.filter((x) => x.stale)) session.out.info(`${s.name} is stale: ${s.stale_reason ?? ''}`);
    }),
  );
}
