/**
 * The sources registry: every data source the daemon knows registers a status provider (and
 * optionally a test) under its name. Job-run sources (KRX Open API, …) are registered by the
 * daemon's wiring; a source that is not a job (a real-time feed) registers its own provider the
 * same way, so GET /admin/sources and `stockscreen sources test <name>` list and test them all.
 */
import type { SourceStatus, SourceTestResult } from '../contract/sources.js';

/** What a source tells about itself. */
export interface SourceStatusProvider {
  status(): Promise<SourceStatus>;
  /** One call per service of the provider (absent: the source cannot be tested). */
  test?(): Promise<SourceTestResult>;
}

/** The registry. */
export interface SourceRegistry {
  /** Register (or replace) the provider of `name`. */
  registerSourceStatus(name: string, provider: SourceStatusProvider): void;
  names(): string[];
  get(name: string): SourceStatusProvider | undefined;
  /** Every source's status, in registration order; a provider that throws is shown as an error, never hides the others. */
  statuses(): Promise<SourceStatus[]>;
}

/** Create an empty registry. */
export function createSourceRegistry(): SourceRegistry {
  const providers = new Map<string, SourceStatusProvider>();
  return {
    registerSourceStatus(name, provider) {
      providers.set(name, provider);
    },
    names: () => [...providers.keys()],
    get: (name) => providers.get(name),
    async statuses() {
      return Promise.all([...providers.entries()].map(async ([name, p]) => {
        try {
          return await p.status();
        } catch (err) {
          return {
            name, kind: 'eod', configured: false, last_success_at: null, last_success_date: null,
            last_error: { at: new Date().toISOString(), code: 'STATUS_UNAVAILABLE', message: (err as Error).message },
            calls_today: 0, stale: false, stale_reason: null,
          } satisfies SourceStatus;
        }
      }));
    },
  };
}
