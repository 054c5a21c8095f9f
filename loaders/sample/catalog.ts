/**
 * Static material for the sample market: per-sector behaviour (weights per
 * market, beta, volatility, margins, balance-sheet shape, valuation, loss and
 * dividend propensity), KSIC industry names (chosen so that
 * `sectorForIndustry` maps them back to the same sector) and name parts.
 */
import type { Sector } from '../sectors.js';

/** How issues of one sector behave. */
export interface SectorProfile {
  sector: Sector;
  /** Relative frequency among KOSPI / KOSDAQ issues (0 = not used there). */
  kospi: number;
  kosdaq: number;
  beta: number;
  /** Idiosyncratic daily volatility. */
  vol: number;
  opMargin: number;
  opMarginSd: number;
  grossMargin: number;
  /** Annual revenue / total assets. */
  turnover: number;
  /** Total assets / equity. */
  leverage: number;
  /** Median price-to-book. */
  pbr: number;
  lossProb: number;
  divProb: number;
  industries: readonly string[];
  names: readonly (readonly [string, string])[];
}

type Row = [Sector, number, number, number, number, number, number, number, number, number, number, number, number];
// sector, kospi, kosdaq, beta, vol, opMargin, sd, gross, turnover, leverage, pbr, lossProb, divProb
const ROWS: Row[] = [
  ['전기전자', 110, 220, 1.15, 0.022, 0.07, 0.06, 0.22, 0.9, 1.7, 1.3, 0.15, 0.45],
  ['화학', 100, 110, 1.0, 0.02, 0.06, 0.05, 0.18, 0.8, 1.9, 0.8, 0.12, 0.55],
  ['의약품', 50, 0, 0.9, 0.022, 0.08, 0.07, 0.5, 0.6, 1.5, 2.5, 0.12, 0.5],
  ['제약', 0, 110, 0.9, 0.03, 0.05, 0.09, 0.5, 0.6, 1.5, 2.5, 0.25, 0.3],
  ['바이오', 0, 180, 1.1, 0.038, 0.02, 0.25, 0.45, 0.25, 1.3, 4.0, 0.55, 0.05],
  ['운수장비', 80, 80, 1.1, 0.021, 0.05, 0.04, 0.15, 1.0, 2.2, 0.7, 0.12, 0.5],
  ['금융업', 60, 60, 0.8, 0.015, 0.2, 0.1, 0.5, 0.15, 2.5, 0.6, 0.08, 0.6],
  ['서비스업', 90, 50, 1.0, 0.022, 0.08, 0.08, 0.4, 0.7, 1.6, 1.6, 0.18, 0.35],
  ['유통업', 70, 80, 0.85, 0.018, 0.03, 0.03, 0.25, 1.5, 2.0, 0.7, 0.15, 0.45],
  ['철강금속', 45, 70, 1.1, 0.02, 0.05, 0.04, 0.1, 0.9, 1.9, 0.5, 0.12, 0.55],
  ['건설업', 40, 30, 1.05, 0.021, 0.04, 0.04, 0.1, 0.9, 2.6, 0.5, 0.18, 0.45],
  ['음식료품', 45, 40, 0.7, 0.016, 0.06, 0.04, 0.3, 1.1, 1.8, 0.9, 0.08, 0.6],
  ['기계', 55, 180, 1.1, 0.024, 0.06, 0.06, 0.22, 0.8, 1.8, 1.1, 0.18, 0.4],
  ['통신업', 8, 20, 0.6, 0.013, 0.08, 0.04, 0.6, 0.6, 2.2, 0.8, 0.1, 0.8],
  ['섬유의복', 25, 25, 0.85, 0.02, 0.05, 0.05, 0.35, 0.9, 1.7, 0.6, 0.15, 0.5],
  ['종이목재', 15, 15, 0.85, 0.018, 0.04, 0.04, 0.15, 0.9, 2.0, 0.5, 0.15, 0.5],
  ['비금속광물', 15, 15, 0.9, 0.018, 0.06, 0.04, 0.2, 0.7, 1.9, 0.5, 0.12, 0.55],
  ['의료정밀', 10, 90, 1.0, 0.028, 0.07, 0.1, 0.5, 0.6, 1.5, 2.0, 0.25, 0.3],
  ['운수창고업', 25, 10, 1.0, 0.02, 0.06, 0.05, 0.15, 0.9, 2.5, 0.8, 0.12, 0.45],
  ['전기가스업', 15, 0, 0.6, 0.015, 0.05, 0.04, 0.12, 0.5, 2.8, 0.4, 0.2, 0.6],
  ['보험', 12, 0, 0.8, 0.016, 0.06, 0.03, 0.2, 0.2, 9.0, 0.5, 0.05, 0.8],
  ['증권', 25, 0, 1.2, 0.02, 0.15, 0.1, 0.6, 0.08, 7.0, 0.6, 0.1, 0.8],
  ['은행', 10, 0, 0.9, 0.015, 0.25, 0.06, 0.6, 0.05, 13.0, 0.4, 0.02, 0.95],
  ['IT서비스', 0, 80, 1.05, 0.026, 0.06, 0.07, 0.35, 0.9, 1.6, 1.8, 0.2, 0.3],
  ['반도체', 0, 170, 1.35, 0.03, 0.08, 0.1, 0.3, 0.6, 1.5, 2.0, 0.22, 0.3],
  ['소프트웨어', 0, 130, 1.05, 0.03, 0.05, 0.12, 0.6, 0.6, 1.4, 2.2, 0.3, 0.25],
  ['오락문화', 0, 90, 1.0, 0.032, 0.04, 0.12, 0.4, 0.6, 1.5, 2.0, 0.3, 0.2],
];

const INDUSTRIES: Record<Sector, readonly string[]> = {
  전기전자: ['전자부품 제조업', '통신 및 방송 장비 제조업', '일차전지 및 이차전지 제조업'],
  화학: ['기초 화학물질 제조업', '기타 화학제품 제조업', '플라스틱제품 제조업'],
  의약품: ['의약품 제조업', '기초 의약물질 제조업'],
  제약: ['의약품 제조업', '기초 의약물질 제조업'],
  바이오: ['자연과학 및 공학 연구개발업'],
  운수장비: ['자동차 신품 부품 제조업', '선박 및 보트 건조업'],
  금융업: ['기타 금융업'],
  서비스업: ['회사 본부 및 경영 컨설팅 서비스업', '기타 전문 서비스업'],
  유통업: ['기타 전문 도매업', '종합 소매업', '상품 종합 도매업'],
  철강금속: ['1차 철강 제조업', '1차 비철금속 제조업'],
  건설업: ['건물 건설업', '토목 건설업'],
  음식료품: ['기타 식품 제조업', '알코올음료 제조업'],
  기계: ['특수 목적용 기계 제조업', '일반 목적용 기계 제조업'],
  통신업: ['전기 통신업'],
  섬유의복: ['봉제의복 제조업'],
  종이목재: ['펄프, 종이 및 판지 제조업'],
  비금속광물: ['시멘트, 석회, 플라스터 및 그 제품 제조업'],
  의료정밀: ['의료용 기기 제조업'],
  운수창고업: ['도로 화물 운송업', '해상 운송업'],
  전기가스업: ['전기업', '연료용 가스 제조 및 배관공급업'],
  보험: ['보험업'],
  증권: ['금융 지원 서비스업'],
  은행: ['은행 및 저축기관'],
  IT서비스: ['컴퓨터 프로그래밍, 시스템 통합 및 관리업', '자료처리, 호스팅, 포털 및 기타 인터넷 정보매개 서비스업'],
  반도체: ['반도체 제조업'],
  소프트웨어: ['소프트웨어 개발 및 공급업'],
  오락문화: ['영화, 비디오물, 방송프로그램 제작 및 배급업'],
};

const NAMES: Record<Sector, readonly (readonly [string, string])[]> = {
  전기전자: [['전자', 'Electronics'], ['전기', 'Electric'], ['디스플레이', 'Display'], ['일렉트론', 'Electron'], ['옵틱스', 'Optics'], ['에너지솔루션', 'Energy Solution']],
  화학: [['화학', 'Chemical'], ['케미칼', 'Chemical'], ['소재', 'Materials'], ['폴리머', 'Polymer'], ['정밀화학', 'Fine Chemical']],
  의약품: [['제약', 'Pharmaceutical'], ['약품', 'Pharm'], ['신약', 'New Drug'], ['헬스케어', 'Healthcare']],
  제약: [['제약', 'Pharmaceutical'], ['팜', 'Pharm'], ['메디슨', 'Medicine'], ['생명과학', 'Life Science']],
  바이오: [['바이오', 'Bio'], ['바이오텍', 'Biotech'], ['젠', 'Gen'], ['셀', 'Cell'], ['테라퓨틱스', 'Therapeutics'], ['바이오로직스', 'Biologics']],
  운수장비: [['모터스', 'Motors'], ['오토텍', 'Autotech'], ['중공업', 'Heavy Industries'], ['조선', 'Shipbuilding'], ['기공', 'Machinery Works']],
  금융업: [['홀딩스', 'Holdings'], ['지주', 'Holding Company'], ['인베스트먼트', 'Investment'], ['캐피탈', 'Capital']],
  서비스업: [['컨설팅', 'Consulting'], ['서비스', 'Services'], ['솔루션즈', 'Solutions'], ['에듀', 'Edu']],
  유통업: [['상사', 'Trading'], ['유통', 'Distribution'], ['리테일', 'Retail'], ['물산', 'Corporation'], ['마트', 'Mart']],
  철강금속: [['제강', 'Steel'], ['스틸', 'Steel'], ['금속', 'Metal'], ['특수강', 'Special Steel'], ['알루미늄', 'Aluminium']],
  건설업: [['건설', 'Engineering & Construction'], ['개발', 'Development'], ['종합건설', 'Construction'], ['토건', 'Civil Works']],
  음식료품: [['식품', 'Foods'], ['푸드', 'Food'], ['제과', 'Confectionery'], ['주조', 'Brewery'], ['F&B', 'F&B']],
  기계: [['기계', 'Machinery'], ['정공', 'Precision'], ['엔지니어링', 'Engineering'], ['로보틱스', 'Robotics'], ['오토메이션', 'Automation']],
  통신업: [['텔레콤', 'Telecom'], ['통신', 'Communications'], ['네트워크', 'Network']],
  섬유의복: [['방직', 'Textile'], ['패션', 'Fashion'], ['어패럴', 'Apparel'], ['섬유', 'Fiber']],
  종이목재: [['제지', 'Paper'], ['판지', 'Board'], ['목재', 'Timber']],
  비금속광물: [['시멘트', 'Cement'], ['요업', 'Ceramics'], ['글라스', 'Glass']],
  의료정밀: [['메디칼', 'Medical'], ['메디텍', 'Meditech'], ['정밀', 'Precision'], ['덴탈', 'Dental']],
  운수창고업: [['해운', 'Shipping'], ['로지스틱스', 'Logistics'], ['물류', 'Logistics'], ['익스프레스', 'Express']],
  전기가스업: [['에너지', 'Energy'], ['도시가스', 'City Gas'], ['파워', 'Power']],
  보험: [['화재', 'Fire & Marine Insurance'], ['생명', 'Life Insurance'], ['손해보험', 'General Insurance']],
  증권: [['증권', 'Securities'], ['투자증권', 'Investment & Securities']],
  은행: [['은행', 'Bank'], ['금융그룹', 'Financial Group']],
  IT서비스: [['정보통신', 'Information & Communication'], ['시스템', 'Systems'], ['데이타', 'Data'], ['클라우드', 'Cloud']],
  반도체: [['반도체', 'Semiconductor'], ['세미콘', 'Semicon'], ['실리콘', 'Silicon'], ['머트리얼즈', 'Materials'], ['테크놀로지', 'Technology']],
  소프트웨어: [['소프트', 'Soft'], ['소프트웨어', 'Software'], ['랩스', 'Labs'], ['웨어', 'Ware']],
  오락문화: [['엔터테인먼트', 'Entertainment'], ['스튜디오', 'Studio'], ['미디어', 'Media'], ['게임즈', 'Games']],
};

/** Korean / English name prefixes (syllable-level romanisations). */
export const NAME_PREFIXES: readonly (readonly [string, string])[] = [
  ['한빛', 'Hanbit'], ['청운', 'Cheongun'], ['대성', 'Daesung'], ['세원', 'Sewon'], ['동화', 'Donghwa'], ['삼화', 'Samhwa'],
  ['신성', 'Shinsung'], ['태평', 'Taepyeong'], ['중앙', 'Joongang'], ['경인', 'Gyeongin'], ['남해', 'Namhae'], ['서진', 'Seojin'],
  ['한결', 'Hangyeol'], ['미래', 'Mirae'], ['새한', 'Saehan'], ['동원', 'Dongwon'], ['우진', 'Woojin'], ['대림', 'Daerim'],
  ['성진', 'Sungjin'], ['영진', 'Youngjin'], ['국제', 'Kukje'], ['한양', 'Hanyang'], ['일신', 'Ilshin'], ['광명', 'Gwangmyeong'],
  ['유니', 'Uni'], ['에이스', 'Ace'], ['넥스', 'Nex'], ['하이', 'Hi'], ['인터', 'Inter'], ['코리아', 'Korea'],
  ['글로벌', 'Global'], ['케이', 'K'], ['제이', 'J'], ['에스', 'S'], ['디에스', 'DS'], ['엘앤', 'L&'], ['티엘', 'TL'],
  ['엠케이', 'MK'], ['비에이치', 'BH'], ['씨앤', 'C&'], ['아이', 'I'], ['제일', 'Jeil'], ['대양', 'Daeyang'], ['금강', 'Geumgang'],
  ['백두', 'Baekdu'], ['한라', 'Halla'], ['동진', 'Dongjin'], ['화신', 'Hwashin'], ['삼우', 'Samwoo'], ['정우', 'Jungwoo'],
];

/** Sector profiles in a fixed order (the order matters for deterministic picks). */
export const SECTOR_PROFILES: readonly SectorProfile[] = ROWS.map(
  ([sector, kospi, kosdaq, beta, vol, opMargin, opMarginSd, grossMargin, turnover, leverage, pbr, lossProb, divProb]) => ({
    sector, kospi, kosdaq, beta, vol, opMargin, opMarginSd, grossMargin, turnover, leverage, pbr, lossProb, divProb,
    industries: INDUSTRIES[sector], names: NAMES[sector],
  }),
);

/** KOSDAQ boards (소속부) for ordinary issues, with their relative frequency. */
export const KOSDAQ_BOARDS: readonly (readonly [string, number])[] = [
  ['우량기업부', 26], ['중견기업부', 31], ['벤처기업부', 21], ['기술성장기업부', 15],
];
