import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { LineChart } from '../../../../cli/ui/components/LineChart.js';
import { Sparkline } from '../../../../cli/ui/components/Sparkline.js';

describe('chart components', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  it('labels the braille chart with its max, min and x labels', () => {
    // Same points as the brailleChart unit test: 0,1,2,3 → ⡠⠊ on one row.
    app = render(<LineChart values={[0, 1, 2, 3]} width={2} height={1} xLabels={['a', 'b']} />);
    // One row: the row is both the top (max) and bottom (min) line, so it gets the max label.
    // Labels start under the chart (after "3 ┤"); at least one space between them.
    expect(app.lastFrame()).toBe('3 ┤⡠⠊\n   a b');
  });

  it('puts the max label on the top row and the min on the bottom one', () => {
    app = render(<LineChart values={[0, 7]} width={1} height={2} formatY={(n) => `${n}k`} />);
    expect(app.lastFrame()).toBe('7k ┤⢸\n0k ┤⡸');
  });

  it('draws a sparkline of the last values', () => {
    app = render(<Sparkline values={[9, 1, 2, 3, 4, 5, 6, 7, 8]} width={8} color={false} />);
    expect(app.lastFrame()).toBe('▁▂▃▄▅▆▇█');
  });
});
