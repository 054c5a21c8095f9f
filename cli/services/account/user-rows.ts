/** How a user is shown: the same columns as a table row, a TSV row and a label/value record. */
import type { PublicUser } from '../../../daemon/contract/users.js';
import type { CellInput, RecordData, TableData } from '../output/output.js';

/** Column order of user rows (also the TSV column order). */
export const USER_HEADERS = ['ID', 'EMAIL', 'NAME', 'TIER', 'ROLE', 'CREATED'] as const;

/** One user's cells, in USER_HEADERS order. */
export function userCells(user: PublicUser): CellInput[] {
  return [
    user.id,
    user.email,
    user.name,
    user.tier,
    user.role === 'admin' ? { text: user.role, tone: 'good' } : user.role,
    user.created_at,
  ];
}

/** Users as a table. */
export function usersTable(users: PublicUser[]): TableData {
  return { headers: [...USER_HEADERS], rows: users.map(userCells) };
}

/** One user as label/value pairs (same order as the table). */
export function userRecord(user: PublicUser): RecordData {
  const cells = userCells(user);
  return { fields: USER_HEADERS.map((header, i) => [header.toLowerCase(), cells[i]] as [string, CellInput]) };
}
