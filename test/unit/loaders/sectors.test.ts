import { describe, it, expect } from 'vitest';
import { sectorForIndustry } from '../../../loaders/sectors.js';

describe('sectorForIndustry', () => {
  it('maps KSIC names from the real descriptive listing to KRX-style sectors', () => {
    expect(sectorForIndustry('반도체 제조업', 'KOSPI')).toBe('전기전자');
    expect(sectorForIndustry('반도체 제조업', 'KOSDAQ')).toBe('반도체');
    expect(sectorForIndustry('의약품 제조업', 'KOSPI')).toBe('의약품');
    expect(sectorForIndustry('의약품 제조업', 'KOSDAQ')).toBe('제약');
    expect(sectorForIndustry('금융 지원 서비스업', 'KOSPI')).toBe('증권');
    expect(sectorForIndustry('전기 통신업', 'KOSPI')).toBe('통신업');
    expect(sectorForIndustry('자동차 신품 부품 제조업', 'KOSDAQ')).toBe('운수장비');
    expect(sectorForIndustry('은행 및 저축기관', 'KOSPI')).toBe('은행');
  });

  it('falls back to 서비스업 and gives null for a blank industry', () => {
    expect(sectorForIndustry('개인 및 가정용품 수리업', 'KOSPI')).toBe('서비스업');
    expect(sectorForIndustry('', 'KOSPI')).toBeNull();
    expect(sectorForIndustry(null, 'KOSDAQ')).toBeNull();
  });
});
