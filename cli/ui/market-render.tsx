/** One-shot terminal views of market data (portfolio, performance), rendered to a string. */
import { renderToString } from 'ink';
import { stripVTControlCharacters } from 'node:util';
import type { ReactNode } from 'react';
import type { Performance, PortfolioOverview } from '../../daemon/contract/portfolio.js';
import type { RenderOptions } from '../services/output/output.js';
import { PerformanceView } from './components/PerformanceView.js';
import { PortfolioView } from './components/PortfolioView.js';

function toText(node: ReactNode, options: RenderOptions): string {
  const text = renderToString(node, { columns: options.columns });
  return (options.color ? text : stripVTControlCharacters(text)) + '\n';
}

/** `portfolio show` for a terminal. */
export function renderPortfolio(portfolio: PortfolioOverview, options: RenderOptions): string {
  return toText(<PortfolioView portfolio={portfolio} color={options.color} />, options);
}

/** `portfolio perf` for a terminal. */
export function renderPerformance(performance: Performance, options: RenderOptions): string {
  return toText(<PerformanceView performance={performance} color={options.color} columns={options.columns} />, options);
}
