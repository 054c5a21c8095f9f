/**
 * English names for the sample universe (development time only). KRX's listing files carry
 * Korean names alone, so an English name is, in order:
 * 1. the company's own English name for the largest issues (OFFICIAL below, written from the
 *    names the companies use in their English disclosures and web sites);
 * 2. a preferred class: its common issue's English name plus "Pref" and the class;
 * 3. otherwise a derivation: Latin parts kept as written (SK, LG, HD, KT&G), well-known group
 *    names and common words translated (WORDS: 삼성 → Samsung, 전자 → Electronics, 제N호스팩 → No.N SPAC),
 *    and what remains transliterated syllable by syllable in the Revised Romanization of Korean.
 * The derivation is approximate (a brand written in Hangul comes out as its romanization, not
 * its original spelling); the sample market says so where it documents its origin.
 */

/** Official English names of the largest issues, by code. */
export const OFFICIAL: Readonly<Record<string, string>> = {
  '005930': 'Samsung Electronics', '000660': 'SK hynix', '005380': 'Hyundai Motor', '373220': 'LG Energy Solution',
  '402340': 'SK Square', '207940': 'Samsung Biologics', '034020': 'Doosan Enerbility', '012450': 'Hanwha Aerospace',
  '000270': 'Kia', '329180': 'HD Hyundai Heavy Industries', '105560': 'KB Financial Group', '028260': 'Samsung C&T',
  '068270': 'Celltrion', '055550': 'Shinhan Financial Group', '032830': 'Samsung Life Insurance', '042660': 'Hanwha Ocean',
  '006800': 'Mirae Asset Securities', '012330': 'Hyundai Mobis', '035420': 'NAVER', '009150': 'Samsung Electro-Mechanics',
  '267260': 'HD Hyundai Electric', '010130': 'Korea Zinc', '006400': 'Samsung SDI', '015760': 'Korea Electric Power',
  '086790': 'Hana Financial Group', '042700': 'Hanmi Semiconductor', '009540': 'HD Korea Shipbuilding & Offshore Engineering',
  '005490': 'POSCO Holdings', '010120': 'LS ELECTRIC', '034730': 'SK', '272210': 'Hanwha Systems',
  '298040': 'Hyosung Heavy Industries', '010140': 'Samsung Heavy Industries', '316140': 'Woori Financial Group',
  '035720': 'Kakao', '051910': 'LG Chem', '000810': 'Samsung Fire & Marine Insurance', '000250': 'Sam Chun Dang Pharm',
  '267250': 'HD Hyundai', '086520': 'Ecopro', '011200': 'HMM', '064350': 'Hyundai Rotem', '096770': 'SK Innovation',
  '024110': 'Industrial Bank of Korea', '000150': 'Doosan', '066570': 'LG Electronics', '196170': 'Alteogen',
  '247540': 'Ecopro BM', '138040': 'Meritz Financial Group', '000720': 'Hyundai Engineering & Construction',
  '047810': 'Korea Aerospace Industries', '033780': 'KT&G', '003670': 'POSCO Future M', '086280': 'Hyundai Glovis',
  '017670': 'SK Telecom', '030200': 'KT', '352820': 'HYBE', '003550': 'LG', '079550': 'LIG Nex1',
  '0126Z0': 'Samsung Epis Holdings', '047050': 'POSCO International', '278470': 'APR', '071050': 'Korea Investment Holdings',
  '005830': 'DB Insurance', '277810': 'Rainbow Robotics', '005940': 'NH Investment & Securities', '010950': 'S-Oil',
  '018260': 'Samsung SDS', '039490': 'Kiwoom Securities', '323410': 'KakaoBank', '307950': 'Hyundai AutoEver',
  '259960': 'Krafton', '298380': 'ABL Bio', '003490': 'Korean Air', '006260': 'LS', '007660': 'Isu Petasys',
  '016360': 'Samsung Securities', '000880': 'Hanwha', '009830': 'Hanwha Solutions', '377300': 'Kakao Pay',
  '180640': 'Hanjin Kal', '003230': 'Samyang Foods', '058470': 'LEENO Industrial', '090430': 'Amorepacific',
  '443060': 'HD Hyundai Marine Solution', '950160': 'Kolon TissueGene', '087010': 'Peptron', '000100': 'Yuhan',
  '047040': 'Daewoo Engineering & Construction', '141080': 'LigaChem Biosciences', '326030': 'SK Biopharmaceuticals',
  '128940': 'Hanmi Pharmaceutical', '161390': 'Hankook Tire & Technology', '011070': 'LG Innotek', '028050': 'Samsung E&A',
  '029780': 'Samsung Card', '028300': 'HLB', '032640': 'LG Uplus', '052690': 'KEPCO Engineering & Construction',
  '064400': 'LG CNS', '078930': 'GS', '267270': 'HD Hyundai Construction Equipment', '240810': 'Wonik IPS',
  '241560': 'Doosan Bobcat', '001040': 'CJ', '214370': 'Caregen', '034220': 'LG Display', '310210': 'Voronoi',
  '138930': 'BNK Financial Group', '175330': 'JB Financial Group', '454910': 'Doosan Robotics',
  '001440': 'Taihan Cable & Solution', '088980': 'Macquarie Korea Infrastructure Fund', '271560': 'Orion',
  '039030': 'EO Technics', '021240': 'Coway', '095340': 'ISC', '004020': 'Hyundai Steel', '022100': 'POSCO DX',
  '036570': 'NCSoft', '062040': 'Sanil Electric', '002380': 'KCC', '032820': 'Woori Technology',
  '088350': 'Hanwha Life Insurance', '066970': 'L&F', '489790': 'Hanwha Vision', '450080': 'Ecopro Materials',
  '251270': 'Netmarble', '018880': 'Hanon Systems', '403870': 'HPSP', '082740': 'Hanwha Engine',
  '353200': 'Daeduck Electronics', '103590': 'Iljin Electric', '051900': 'LG H&H', '035250': 'Kangwon Land',
  '031210': 'SGI Seoul Guarantee', '000990': 'DB HiTek', '108490': 'Robotis', '010060': 'OCI Holdings',
  '226950': 'OliX Pharmaceuticals', '011790': 'SKC', '111770': 'Youngone', '012510': 'Douzone Bizon',
  '011170': 'Lotte Chemical', '0009K0': 'Aimed Bio', '439260': 'Daehan Shipbuilding', '214150': 'Classys',
  '000080': 'HiteJinro', '004990': 'Lotte Corporation', '023530': 'Lotte Shopping', '004170': 'Shinsegae',
  '139480': 'E-Mart', '097950': 'CJ CheilJedang', '004370': 'Nongshim', '007310': 'Ottogi', '001680': 'Daesang',
  '006280': 'Green Cross', '185750': 'Chong Kun Dang', '000120': 'CJ Logistics', '020560': 'Asiana Airlines',
  '036460': 'Korea Gas', '005300': 'Lotte Chilsung Beverage', '282330': 'BGF Retail', '069960': 'Hyundai Department Store',
  '035760': 'CJ ENM', '041510': 'SM Entertainment', '122870': 'YG Entertainment', '035900': 'JYP Entertainment',
  '293490': 'Kakao Games', '263750': 'Pearl Abyss', '112040': 'Wemade', '145020': 'Hugel', '091990': 'Celltrion Healthcare',
  '068760': 'Celltrion Pharm', '357780': 'Soulbrain', '005290': 'Dongjin Semichem', '036930': 'Jusung Engineering',
  '042670': 'HD Hyundai Infracore', '010620': 'HD Hyundai Mipo', '002790': 'Amorepacific Group', '008770': 'Hotel Shilla',
  '030000': 'Cheil Worldwide', '069620': 'Daewoong Pharmaceutical', '003090': 'Daewoong', '000210': 'DL', '375500': 'DL E&C',
  '006360': 'GS Engineering & Construction', '294870': 'HDC Hyundai Development', '001450': 'Hyundai Marine & Fire Insurance',
  '000240': 'Hankook & Company', '073240': 'Kumho Tire', '011780': 'Kumho Petrochemical', '006120': 'SK Discovery',
  '285130': 'SK Chemicals', '302440': 'SK Bioscience', '361610': 'SK IE Technology', '018670': 'SK Gas',
  '001740': 'SK Networks'
};

/** Group and family names that open a company name, translated. */
const BRANDS: Readonly<Record<string, string>> = {
  삼성: 'Samsung', 현대: 'Hyundai', 한화: 'Hanwha', 롯데: 'Lotte', 두산: 'Doosan', 신세계: 'Shinsegae', 포스코: 'POSCO',
  효성: 'Hyosung', 코오롱: 'Kolon', 대상: 'Daesang', 동원: 'Dongwon', 농심: 'Nongshim', 오뚜기: 'Ottogi', 한진: 'Hanjin',
  금호: 'Kumho', 대한: 'Daehan', 한국: 'Korea', 대우: 'Daewoo', 동아: 'Dong-A', 한미: 'Hanmi', 녹십자: 'Green Cross',
  유한: 'Yuhan', 종근당: 'Chong Kun Dang', 셀트리온: 'Celltrion', 카카오: 'Kakao', 에코프로: 'Ecopro', 하나: 'Hana',
  신한: 'Shinhan', 우리: 'Woori', 미래에셋: 'Mirae Asset', 키움: 'Kiwoom', 대신: 'Daishin', 유안타: 'Yuanta', 교보: 'Kyobo',
  메리츠: 'Meritz', 한양: 'Hanyang', 케이비: 'KB', 엔에이치: 'NH', 아모레: 'Amore', 코리아: 'Korea', 글로벌: 'Global',
  인터내셔널: 'International', 동국: 'Dongkuk', 세아: 'SeAH', 한솔: 'Hansol', 태광: 'Taekwang', 영풍: 'Youngpoong',
  대림: 'Daelim', 동부: 'Dongbu', 한일: 'Hanil', 한라: 'Halla', 대웅: 'Daewoong', 일동: 'Ildong', 보령: 'Boryung',
  광동: 'Kwangdong', 한섬: 'Handsome', 제일: 'Cheil', 신성: 'Shinsung', 동양: 'Tongyang', 서울: 'Seoul', 부산: 'Busan',
  대구: 'Daegu', 인천: 'Incheon', 경남: 'Kyongnam', 제주: 'Jeju', 아시아: 'Asia', 유니온: 'Union', 하이: 'Hi',
};

/** Common words that end a company name (or a part of it), translated. */
const WORDS: Readonly<Record<string, string>> = {
  전자: 'Electronics', 전기: 'Electric', 전선: 'Cable', 화학: 'Chemical', 케미칼: 'Chemical', 석유화학: 'Petrochemical',
  제약: 'Pharmaceutical', 약품: 'Pharm', 신약: 'Pharm', 바이오로직스: 'Biologics', 바이오사이언스: 'Bioscience',
  바이오텍: 'Biotech', 바이오: 'Bio', 테라퓨틱스: 'Therapeutics', 파마: 'Pharma', 팜: 'Pharm', 헬스케어: 'Healthcare',
  메디칼: 'Medical', 메디컬: 'Medical', 메디텍: 'Meditech', 생명과학: 'Life Sciences', 홀딩스: 'Holdings', 지주: 'Holdings',
  금융지주: 'Financial Group', 금융: 'Financial', 투자증권: 'Investment & Securities', 증권: 'Securities',
  손해보험: 'General Insurance', 화재: 'Fire & Marine Insurance', 생명: 'Life Insurance', 보험: 'Insurance', 은행: 'Bank',
  캐피탈: 'Capital', 인베스트먼트: 'Investment', 리츠: 'REIT', 종합건설: 'Construction', 건설: 'E&C', 중공업: 'Heavy Industries',
  산업: 'Industrial', 공업: 'Industrial', 정보통신: 'Information & Communication', 통신: 'Telecom', 텔레콤: 'Telecom',
  네트웍스: 'Networks', 네트워크: 'Network', 에너지: 'Energy', 에너지솔루션: 'Energy Solution', 솔루션즈: 'Solutions',
  솔루션: 'Solution', 테크놀로지: 'Technology', 테크: 'Tech', 기술: 'Technology', 소재: 'Materials', 머티리얼즈: 'Materials',
  시스템즈: 'Systems', 시스템: 'System', 반도체: 'Semiconductor', 디스플레이: 'Display', 식품: 'Foods', 푸드: 'Food',
  제과: 'Confectionery', 물산: 'Corporation', 상사: 'Trading', 해운: 'Shipping', 조선: 'Shipbuilding', 로보틱스: 'Robotics',
  엔터테인먼트: 'Entertainment', 스튜디오: 'Studio', 미디어: 'Media', 게임즈: 'Games', 게임스: 'Games', 소프트: 'Soft',
  제강: 'Steel', 철강: 'Steel', 스틸: 'Steel', 특수강: 'Special Steel', 금속: 'Metal', 시멘트: 'Cement', 제지: 'Paper',
  섬유: 'Textile', 방직: 'Spinning', 패션: 'Fashion', 항공: 'Airlines', 자동차: 'Motor', 모터스: 'Motors', 정밀: 'Precision',
  기계: 'Machinery', 개발: 'Development', 엔지니어링: 'Engineering', 오토: 'Auto', 랩스: 'Labs', 에이아이: 'AI',
  인더스트리: 'Industry', 인더스트리즈: 'Industries', 일렉트릭: 'Electric', 플러스: 'Plus', 밸런스: 'Balance',
  스팩: 'SPAC', 기업인수목적: 'Acquisition', 유통: 'Distribution', 리테일: 'Retail', 로지스틱스: 'Logistics', 물류: 'Logistics',
  가스: 'Gas', 도시가스: 'City Gas', 파워: 'Power', 백화점: 'Department Store', 호텔: 'Hotel', 레저: 'Leisure', 여행: 'Tour',
  우주: 'Space', 에어로스페이스: 'Aerospace', 방산: 'Defense', 화장품: 'Cosmetics', 코스메틱: 'Cosmetic', 신소재: 'Advanced Materials',
};

const INITIALS = ['g', 'kk', 'n', 'd', 'tt', 'r', 'm', 'b', 'pp', 's', 'ss', '', 'j', 'jj', 'ch', 'k', 't', 'p', 'h'];
const MEDIALS = ['a', 'ae', 'ya', 'yae', 'eo', 'e', 'yeo', 'ye', 'o', 'wa', 'wae', 'oe', 'yo', 'u', 'wo', 'we', 'wi', 'yu', 'eu', 'ui', 'i'];
const FINALS = ['', 'k', 'k', 'k', 'n', 'n', 'n', 't', 'l', 'k', 'm', 'l', 'l', 'l', 'p', 'l', 'm', 'p', 'p', 't', 't', 'ng', 't', 't', 'k', 't', 'p', 't'];

/** A run of Hangul syllables in the Revised Romanization (ㄹ after ㄹ as "l"; a syllable-final "l" before a vowel as "r"). */
export function romanize(hangul: string): string {
  let out = '';
  let prevFinal = '';
  for (const ch of hangul) {
    const code = ch.codePointAt(0)! - 0xac00;
    if (code < 0 || code > 11_171) { out += ch; prevFinal = ''; continue; }
    let initial = INITIALS[Math.floor(code / 588)]!;
    const medial = MEDIALS[Math.floor((code % 588) / 28)]!;
    const final = FINALS[code % 28]!;
    if (initial === 'r' && (prevFinal === 'l' || out === '')) initial = 'l';
    if (initial === 'r' && out !== '' && prevFinal === 'n') initial = 'l';
    if (initial === '' && prevFinal === 'l') out = `${out.slice(0, -1)}r`;
    out += initial + medial + final;
    prevFinal = final;
  }
  return out.charAt(0).toUpperCase() + out.slice(1);
}

const longestFirst = (words: Readonly<Record<string, string>>): string[] => Object.keys(words).sort((a, b) => b.length - a.length);
const BRAND_LIST = longestFirst(BRANDS);
const WORD_LIST = longestFirst(WORDS);

/**
 * One run of Hangul: a group name at the start of the company name, then common words taken off its
 * end (longest first), and the middle romanized. Words are matched at the end only, so a brand
 * written in Hangul (성우테크론) is romanized whole rather than cut at a word it happens to contain.
 */
function hangulRun(run: string, first: boolean): string[] {
  const head: string[] = [];
  const tail: string[] = [];
  let rest = run;
  const brand = first ? BRAND_LIST.find((b) => rest.startsWith(b)) : undefined;
  if (brand) { head.push(BRANDS[brand]!); rest = rest.slice(brand.length); }
  for (let word = WORD_LIST.find((w) => rest.endsWith(w)); word && rest.length > 0; word = WORD_LIST.find((w) => rest.endsWith(w))) {
    tail.unshift(WORDS[word]!);
    rest = rest.slice(0, -word.length);
  }
  return [...head, ...(rest ? [romanize(rest)] : []), ...tail];
}

/** A Korean company name in English words (see the file comment, step 3). */
export function deriveEnglish(name: string): string {
  const spac = /^(.*?)(?:제(\d+)호)?스팩(?:(\d+)호)?$/.exec(name.trim());
  if (spac && spac[1]) {
    const no = spac[2] ?? spac[3];
    return `${deriveEnglish(spac[1])} SPAC${no ? ` No.${no}` : ''}`;
  }
  const parts: string[] = [];
  const segments = name.trim().match(/[\uac00-\ud7a3]+|[^\uac00-\ud7a3\s]+|\s+/g) ?? [];
  segments.forEach((segment, i) => {
    if (/^\s+$/.test(segment)) return;
    if (/^[\uac00-\ud7a3]/.test(segment)) parts.push(...hangulRun(segment, i === 0));
    else parts.push(segment);
  });
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/** A preferred class's English name from its common issue's: "Hyundai Motor Pref 2B" for 현대차2우B. */
export function preferredEnglish(name: string, commonName: string | undefined, commonEnglish: string | undefined): string {
  const base = commonEnglish ?? deriveEnglish(name.replace(/\d*우[A-Z]?(\(전환\))?$/, ''));
  const suffix = commonName && name.startsWith(commonName) ? name.slice(commonName.length).trim() : (/\d*우[A-Z]?(\(전환\))?$/.exec(name)?.[0] ?? '우');
  const m = /^(\d*)우([A-Z]?)(\(전환\))?$/.exec(suffix);
  if (!m) return `${base} Pref`;
  const cls = `${m[1] ?? ''}${m[2] ?? ''}`;
  return `${base} Pref${cls ? ` ${cls}` : ''}${m[3] ? ' (Convertible)' : ''}`;
}
