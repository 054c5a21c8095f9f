/** `portfolio show` on a terminal: holdings with P&L coloured (red gain, blue loss) and a totals row. */
import { Box, Text } from 'ink';
import type { PortfolioOverview } from '../../../daemon/contract/portfolio.js';
import { holdingsView } from '../../services/portfolio/portfolio-rows.js';
import { MarketTable } from './MarketTable.js';

/** Props of PortfolioView. */
export interface PortfolioViewProps {
  portfolio: PortfolioOverview;
  color: boolean;
}

/** Render the holdings table, or a hint for an empty portfolio. */
export function PortfolioView({ portfolio, color }: PortfolioViewProps) {
  if (portfolio.holdings.length === 0) {
    return <Text dimColor>No holdings yet. Add one with `stockscreen portfolio add 005930 10 71000`.</Text>;
  }
  return (
    <Box flexDirection="column">
      <MarketTable data={holdingsView(portfolio)} color={color} />
    </Box>
  );
}
