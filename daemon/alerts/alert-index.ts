/**
 * The price alerts held in memory: by id, and by stock code for a tick's lookup (no database read
 * per tick). A code's list is replaced, never edited, when an alert leaves it, so a tick can go on
 * iterating the list it got while one of its alerts fires and is dropped.
 */

/** What the index needs of an entry: its alert's id and stock. */
export interface Indexed {
  alert: { id: string; code: string };
}

/** Alerts by id and by code. */
export class AlertIndex<E extends Indexed> {
  private readonly byId = new Map<string, E>();
  private readonly byCode = new Map<string, E[]>();

  add(entry: E): void {
    this.byId.set(entry.alert.id, entry);
    const list = this.byCode.get(entry.alert.code);
    if (list) list.push(entry);
    else this.byCode.set(entry.alert.code, [entry]);
  }

  /** Remove `entry` (nothing when another entry holds its id by now). */
  drop(entry: E): void {
    if (this.byId.get(entry.alert.id) !== entry) return;
    this.byId.delete(entry.alert.id);
    const list = this.byCode.get(entry.alert.code) ?? [];
    const rest = list.filter((e) => e !== entry);
    if (rest.length) this.byCode.set(entry.alert.code, rest);
    else this.byCode.delete(entry.alert.code);
  }

  get(id: string): E | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The alerts on `code` (safe to iterate while entries are dropped). */
  ofCode(code: string): readonly E[] | undefined {
    return this.byCode.get(code);
  }

  entries(): IterableIterator<E> {
    return this.byId.values();
  }

  /** Alerts and stock codes held. */
  size(): { alerts: number; codes: number } {
    return { alerts: this.byId.size, codes: this.byCode.size };
  }
}
