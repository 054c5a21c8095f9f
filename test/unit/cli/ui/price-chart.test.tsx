import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { chartModel } from '../../../../cli/services/output/chart.js';
import { PriceChart } from '../../../../cli/ui/components/PriceChart.js';
import { renderPriceChart } from '../../../../cli/ui/stock-views.js';

const points = [
  { date: '2026-03-19', value: 100_000 },
  { date: '2026-03-20', value: 200_000 },
];

describe('PriceChart', () => {
  it('labels the high on the top row and the low on the bottom row, with the date range and change underneath', () => {
    const model = chartModel(points, 20, 2)!;
    const { lastFrame, cleanup } = render(<PriceChart model={model} />);
    // 100,000 → 1 eighth (▁ on the bottom row), 200,000 → 16 eighths (two full cells).
    expect(lastFrame()!.split('\n')).toEqual([
      '200,000 │ █',
      '100,000 │▁█',
      '         2026-03-19 2026-03-20',
      '         100,000 → 200,000 (+100.00%)',
    ]);
    cleanup();
  });

  it('renders to plain text when colour is off', () => {
    const model = chartModel([...points].reverse(), 20, 2)!;
    const plain = renderPriceChart(model, { color: false, columns: 80 });
    expect(plain).not.toContain('\u001b[');
    expect(plain).toContain('(-50.00%)'); // 200,000 → 100,000
  });
});
