/**
 * The 20-day average volume that `volume_above` alerts compare the day's volume with:
 * the computed indicator `avg_volume_20` when the snapshot has one, else the mean volume
 * of the stock's last 20 daily bars. Read when alerts are loaded, never per tick.
 */
import type { Logger } from 'pino';
import type { IndicatorsRepo } from '../store/indicators-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';

/** Bars in the average. */
export const AVERAGE_VOLUME_DAYS = 20;

/** Collaborators of the lookup. */
export interface AverageVolumeDeps {
  indicators: Pick<IndicatorsRepo, 'get'>;
  prices: Pick<PricesRepo, 'history'>;
}

/** Build `averageVolumes(codes)` for the evaluator; codes without any history are absent. */
export function createAverageVolumes(deps: AverageVolumeDeps): (codes: readonly string[]) => Promise<Map<string, number>> {
  async function one(code: string): Promise<number | null> {
    const computed = (await deps.indicators.get(code))?.values.avg_volume_20;
    if (typeof computed === 'number' && computed > 0) return computed;
    const bars = await deps.prices.history(code, { limit: AVERAGE_VOLUME_DAYS });
    if (bars.length === 0) return null;
    return bars.reduce((s, b) => s + b.volume, 0) / bars.length;
  }
  return async (codes) => {
    const out = new Map<string, number>();
    for (const code of codes) {
      const avg = await one(code);
      if (avg !== null) out.set(code, avg);
    }
    return out;
  };
}

/** The averages the evaluator holds: read for the codes of `volume_above` alerts when they load and after a new snapshot. */
export class AverageVolumeCache {
  private readonly values = new Map<string, number>();

  constructor(
    private readonly read: (codes: readonly string[]) => Promise<Map<string, number>>,
    private readonly logger: Logger,
  ) {}

  get(code: string): number | undefined {
    return this.values.get(code);
  }

  has(code: string): boolean {
    return this.values.has(code);
  }

  /** Read the averages of `codes`; a failed read keeps the ones held and is logged. */
  async load(codes: readonly string[]): Promise<void> {
    if (codes.length === 0) return;
    try {
      for (const [code, avg] of await this.read(codes)) this.values.set(code, avg);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'alert evaluator: could not load average volumes');
    }
  }
}
