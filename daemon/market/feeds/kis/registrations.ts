/**
 * The real-time registrations of one KIS session: the wanted ones (in priority order), the ones
 * the server confirmed, and the requests sent but not answered yet. It says what to send to bring
 * the server to the wanted ones (releases first, then registrations), and what an acknowledgement
 * changes. After a refusal for the limit (OPSP0008 "MAX SUBSCRIBE OVER") the session asks for no
 * more than it holds, so a refusal is never retried in a loop.
 */
import { KIS, type KisSystemMessage } from './protocol.js';

/** One real-time registration: a feed (H0STCNT0, H0STASP0) and a code. */
export interface Registration {
  trId: string;
  code: string;
}

/** One request to send: register or release a code on a feed. */
export interface RegistrationRequest extends Registration {
  register: boolean;
}

/** What an acknowledgement meant. */
export type Acknowledged = 'held' | 'over-limit' | 'refused';

const keyOf = (r: Registration) => `${r.trId}|${r.code}`;
/** A request unanswered this long (ms) is sent again by the next reconcile. */
const PENDING_MS = 5_000;
// "ALREADY IN SUBSCRIBE": the server holds it (a request repeated after a lost answer).
const ALREADY_REGISTERED = 'OPSP0002';

/** The registrations of a session. */
export class RegistrationBook {
  private wanted: Registration[] = [];
  // Registrations the server confirmed.
  private readonly registered = new Set<string>();
  // Sent request → when (ms).
  private readonly pending = new Map<string, number>();
  private cap = Infinity;

  /** How many are wanted. */
  get wantedCount(): number {
    return this.wanted.length;
  }

  /** How many the server confirmed. */
  get registeredCount(): number {
    return this.registered.size;
  }

  /** Make these the wanted registrations (duplicates dropped; the first ones are kept when over the limit). */
  want(registrations: readonly Registration[]): void {
    const seen = new Set<string>();
    this.wanted = registrations.filter((r) => !seen.has(keyOf(r)) && seen.add(keyOf(r)));
  }

  /** The server holds nothing (its connection closed); `newSession`: a connection opened, whose limit is not known yet. */
  forget(newSession: boolean): void {
    this.registered.clear();
    this.pending.clear();
    if (newSession) this.cap = Infinity;
  }

  /** The requests that bring the server to the wanted registrations, releases first; each is pending from `now`. */
  requests(now: number): RegistrationRequest[] {
    const target = this.wanted.slice(0, Number.isFinite(this.cap) ? this.cap : this.wanted.length);
    const targetKeys = new Set(target.map(keyOf));
    const waiting = (key: string) => (this.pending.get(key) ?? -Infinity) > now - PENDING_MS;
    const out: RegistrationRequest[] = [];
    for (const key of [...this.registered]) {
      if (targetKeys.has(key) || waiting(key)) continue;
      const [trId, code] = key.split('|') as [string, string];
      this.pending.set(key, now);
      out.push({ trId, code, register: false });
    }
    for (const r of target) {
      const key = keyOf(r);
      if (this.registered.has(key) || waiting(key)) continue;
      this.pending.set(key, now);
      out.push({ trId: r.trId, code: r.code, register: true });
    }
    return out;
  }

  /** The server answered the request of `msg.trKey` on `msg.trId`. */
  acknowledge(msg: KisSystemMessage & { trKey: string }): Acknowledged {
    const key = `${msg.trId}|${msg.trKey}`;
    this.pending.delete(key);
    if (msg.ok || msg.msgCode === ALREADY_REGISTERED) {
      if (msg.message?.startsWith('UNSUB')) this.registered.delete(key);
      else this.registered.add(key);
      return 'held';
    }
    if (msg.msgCode === KIS.maxSubscribeOver) {
      this.cap = this.registered.size;
      return 'over-limit';
    }
    return 'refused';
  }
}
