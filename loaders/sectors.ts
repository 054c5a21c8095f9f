/**
 * The sector vocabulary used by the service (KRX 업종 names: KOSPI-style for
 * KOSPI issues, KOSDAQ-style where KOSDAQ uses its own names) and an
 * approximate mapping from the KSIC industry names found in listings.
 * KRX's own sector assignment is not in the public listing files, so
 * `sectorForIndustry` is a keyword approximation (first matching rule wins).
 */
import type { Market } from '../daemon/kernel/records.js';

/** Every sector name the loaders and the sample generator produce. */
export const SECTORS = [
  '전기전자', '화학', '의약품', '운수장비', '금융업', '서비스업', '유통업', '철강금속', '건설업', '음식료품',
  '기계', '통신업', '섬유의복', '종이목재', '비금속광물', '의료정밀', '운수창고업', '전기가스업', '보험', '증권',
  '은행', 'IT서비스', '반도체', '소프트웨어', '제약', '바이오', '오락문화',
] as const;
/** One sector name. */
export type Sector = (typeof SECTORS)[number];

/** [KSIC keyword pattern, sector for KOSPI, sector for KOSDAQ]; order matters. */
const RULES: readonly (readonly [RegExp, Sector, Sector])[] = [
  [/반도체/, '전기전자', '반도체'],
  [/소프트웨어/, '서비스업', '소프트웨어'],
  [/컴퓨터 프로그래밍|자료처리|정보 서비스|정보매개/, '서비스업', 'IT서비스'],
  [/의약품|의약물질|의약 관련/, '의약품', '제약'],
  [/연구개발업/, '의약품', '바이오'],
  [/의료용 기기|정밀기기|광학기기|사진장비/, '의료정밀', '의료정밀'],
  [/전자부품|통신 및 방송 장비|영상 및 음향|컴퓨터 및 주변|전지|전동기|전기장비|절연선|전구|가정용 기기|마그네틱/, '전기전자', '전기전자'],
  [/자동차|선박|항공기|운송장비|철도장비|트레일러/, '운수장비', '운수장비'],
  [/기계|무기 및 총포탄/, '기계', '기계'],
  [/화학|플라스틱|고무|비료|석유 정제/, '화학', '화학'],
  [/철강|비철금속|금속/, '철강금속', '철강금속'],
  [/시멘트|비금속 광물|유리|요업/, '비금속광물', '비금속광물'],
  [/건설|건축|공사업|토목|시설물/, '건설업', '건설업'],
  [/식품|음료|육류|수산물|사료|곡물|과실|유지|낙농|과자|담배 제조|조리식품|작물|어업/, '음식료품', '음식료품'],
  [/의복|섬유|직물|가죽|신발|방적|편조/, '섬유의복', '섬유의복'],
  [/종이|펄프|나무|목재|가구|인쇄/, '종이목재', '종이목재'],
  [/전기업|가스|증기/, '전기가스업', '전기가스업'],
  [/통신업|방송업/, '통신업', '통신업'],
  [/운송업|운송관련|여행사|창고/, '운수창고업', '운수창고업'],
  [/보험/, '보험', '보험'],
  [/은행|저축기관/, '은행', '은행'],
  [/금융 지원|증권|신탁업|집합투자/, '증권', '증권'],
  [/금융/, '금융업', '금융업'],
  [/도매|소매|판매업|상품 중개/, '유통업', '유통업'],
  [/영화|방송프로그램|오디오물|출판|광고|창작|유원지|스포츠|오락|숙박|음식점/, '서비스업', '오락문화'],
];

/**
 * The sector for a KSIC industry name (e.g. 반도체 제조업 → 전기전자 on KOSPI,
 * 반도체 on KOSDAQ); '서비스업' when no rule matches; null for a blank industry.
 */
export function sectorForIndustry(industry: string | null | undefined, market: Market): Sector | null {
  const text = industry?.trim() ?? '';
  if (text === '') return null;
  for (const [pattern, kospi, kosdaq] of RULES) {
    if (pattern.test(text)) return market === 'KOSPI' ? kospi : kosdaq;
  }
  return '서비스업';
}

/** English names of the sectors (what `stockscreen stocks sectors` lists and `--sector` accepts). */
export const SECTOR_ENGLISH: Readonly<Record<Sector, string>> = {
  전기전자: 'Electrical & Electronics', 화학: 'Chemicals', 의약품: 'Pharmaceuticals', 운수장비: 'Transport Equipment', 금융업: 'Finance',
  서비스업: 'Services', 유통업: 'Distribution', 철강금속: 'Steel & Metals', 건설업: 'Construction', 음식료품: 'Food & Beverages',
  기계: 'Machinery', 통신업: 'Telecommunications', 섬유의복: 'Textiles & Apparel', 종이목재: 'Paper & Wood', 비금속광물: 'Non-metallic Minerals',
  의료정밀: 'Medical & Precision', 운수창고업: 'Transport & Storage', 전기가스업: 'Utilities', 보험: 'Insurance', 증권: 'Securities',
  은행: 'Banks', IT서비스: 'IT Services', 반도체: 'Semiconductors', 소프트웨어: 'Software', 제약: 'Pharma', 바이오: 'Biotech', 오락문화: 'Entertainment & Culture',
};

/** A name folded for matching: lower case, no spaces, "&" or "and", no plural s. */
function fold(name: string): string {
  return name.toLowerCase().replace(/\s+|&|\band\b/g, '').replace(/s$/, '');
}

/**
 * The stored (Korean) sector for a Korean or English name, case- and plural-insensitive
 * ("Semiconductors", "semiconductor", "반도체" → 반도체); undefined when none matches.
 */
export function resolveSector(name: string): Sector | undefined {
  const wanted = name.trim();
  if ((SECTORS as readonly string[]).includes(wanted)) return wanted as Sector;
  const key = fold(wanted);
  return SECTORS.find((s) => fold(SECTOR_ENGLISH[s]) === key || fold(s) === key);
}
