/** The REST prefixes; both serve the same router and share rate-limit counters. */
export const API_PREFIXES = ['/api/v1', '/v1'] as const;
