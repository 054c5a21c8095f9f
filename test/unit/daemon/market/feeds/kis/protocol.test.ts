/**
 * Reading the KIS formats (layouts from the provider's public client code, see
 * daemon/market/feeds/kis/protocol.ts) and turning quotes into price events under the market rules.
 */
import { describe, expect, it } from 'vitest';
import type { PriceEvent } from '../../../../../../daemon/kernel/events.js';
import type { FeedStock } from '../../../../../../daemon/market/feed/types.js';
import {
  multiPriceQuery, parseBookRecord, parseMultiPriceRow, parseSystemMessage, parseTradeRecords, registrationMessage, splitFrame, TRADE_COLUMNS,
} from '../../../../../../daemon/market/feeds/kis/protocol.js';
import { toPriceEvent } from '../../../../../../daemon/market/feeds/kis/to-event.js';

const samsung: FeedStock = { code: '005930', name: '삼성전자', market: 'KOSPI', sector: 'Semiconductors', prev_close: 70_000 };
const NOW = Date.parse('2026-03-09T10:00:00+09:00');

function trade(code: string, price: string, volume: string, time = '093354', date = '20260309'): string[] {
  const f = new Array<string>(TRADE_COLUMNS.length).fill('0');
  f[0] = code; f[1] = time; f[2] = price; f[7] = '70000'; f[8] = '72000'; f[9] = '69500'; f[13] = volume; f[14] = '5000000000'; f[33] = date;
  return f;
}

describe('KIS request formats', () => {
  it('multi-price: FID_COND_MRKT_DIV_CODE_n = J and FID_INPUT_ISCD_n for each code', () => {
    const q = multiPriceQuery(['005930', '000660']);
    expect(Object.fromEntries(q)).toEqual({ FID_COND_MRKT_DIV_CODE_1: 'J', FID_INPUT_ISCD_1: '005930', FID_COND_MRKT_DIV_CODE_2: 'J', FID_INPUT_ISCD_2: '000660' });
  });
  it('registration: header approval_key/custtype/tr_type, body.input tr_id/tr_key', () => {
    expect(JSON.parse(registrationMessage('ak', 'H0STCNT0', '005930', true))).toEqual({
      header: { approval_key: 'ak', custtype: 'P', tr_type: '1', 'content-type': 'utf-8' }, body: { input: { tr_id: 'H0STCNT0', tr_key: '005930' } },
    });
    expect(JSON.parse(registrationMessage('ak', 'H0STCNT0', '005930', false)).header.tr_type).toBe('2');
  });
});

describe('KIS answers', () => {
  it('a multi-price row becomes a quote; price 0, non-numbers and foreign layouts are reasons', () => {
    expect(parseMultiPriceRow({ inter_shrn_iscd: '005930', inter2_prpr: '71900', acml_vol: '1234', acml_tr_pbmn: '88000000', inter2_oprc: '70000', inter2_hgpr: '72000', inter2_lwpr: '69000' }))
      .toEqual({ code: '005930', price: 71_900, volume: 1234, tradingValue: 88_000_000, open: 70_000, high: 72_000, low: 69_000, ts: null });
    expect(parseMultiPriceRow({ inter_shrn_iscd: '005930', inter2_prpr: '0', acml_vol: '1' })).toBe('zero_price');
    expect(parseMultiPriceRow({ inter_shrn_iscd: '005930', inter2_prpr: 'abc', acml_vol: '1' })).toBe('bad_number');
    expect(parseMultiPriceRow({ code: '005930' })).toBe('bad_layout');
    expect(parseMultiPriceRow(null)).toBe('bad_layout');
  });

  it('a trade frame: `0|H0STCNT0|002|` with two 46-field records, each with its own time', () => {
    const raw = `0|H0STCNT0|002|${[...trade('005930', '71900', '1000'), ...trade('000660', '180000', '500', '093355')].join('^')}`;
    const frame = splitFrame(raw)!;
    expect(frame).toMatchObject({ encrypted: false, trId: 'H0STCNT0', count: 2 });
    const [a, b] = parseTradeRecords(frame.body, frame.count);
    expect(a).toMatchObject({ code: '005930', price: 71_900, volume: 1000, ts: Date.parse('2026-03-09T09:33:54+09:00') });
    expect(b).toMatchObject({ code: '000660', price: 180_000, ts: Date.parse('2026-03-09T09:33:55+09:00') });
  });

  it('a trade frame of another layout is refused whole; a record with price 0 alone', () => {
    expect(parseTradeRecords('005930^093354^71900', 1)).toEqual(['bad_layout']);
    expect(parseTradeRecords(trade('005930', '0', '1').join('^'), 1)).toEqual(['zero_price']);
    expect(splitFrame('{"header":{}}')).toBeNull();
    expect(splitFrame('0|H0STCNT0|abc|x')).toBeNull();
  });

  it('an order book frame: 10 asks and bids with their sizes; empty levels end the book', () => {
    const f = new Array<string>(59).fill('0');
    f[0] = '005930'; f[3] = '72000'; f[4] = '72100'; f[13] = '71900'; f[23] = '10'; f[24] = '20'; f[33] = '30';
    expect(parseBookRecord(f.join('^'), 1)).toEqual({ code: '005930', asks: [{ price: 72_000, quantity: 10 }, { price: 72_100, quantity: 20 }], bids: [{ price: 71_900, quantity: 30 }] });
    f[3] = '72050';
    expect(parseBookRecord(f.join('^'), 1)).toBe('off_grid');
    expect(parseBookRecord('005930^1', 1)).toBe('bad_layout');
  });

  it('control messages: acknowledgements, OPSP0008 and PINGPONG', () => {
    expect(parseSystemMessage('{"header":{"tr_id":"H0STCNT0","tr_key":"005930","encrypt":"N"},"body":{"rt_cd":"0","msg_cd":"OPSP0000","msg1":"SUBSCRIBE SUCCESS","output":{"iv":"x","key":"y"}}}'))
      .toEqual({ trId: 'H0STCNT0', trKey: '005930', ok: true, msgCode: 'OPSP0000', message: 'SUBSCRIBE SUCCESS', pingpong: false });
    expect(parseSystemMessage('{"header":{"tr_id":"H0STCNT0","tr_key":"005930","encrypt":"N"},"body":{"rt_cd":"1","msg_cd":"OPSP0008","msg1":"MAX SUBSCRIBE OVER"}}'))
      .toMatchObject({ ok: false, msgCode: 'OPSP0008' });
    expect(parseSystemMessage('{"header":{"tr_id":"PINGPONG","datetime":"20260309100000"}}')).toMatchObject({ pingpong: true });
    expect(parseSystemMessage('not json')).toBeNull();
  });
});

describe('toPriceEvent: the market rules before anything reaches the bus', () => {
  const q = (price: number, volume: number, ts: number | null = null) => ({ code: '005930', price, volume, tradingValue: null, open: null, high: null, low: null, ts });
  const ctx = { stock: samsung, prev: null as PriceEvent | null, now: NOW, source: 'sweep' as const, session: 'regular' as const };

  it('marks the source and the session, and prices the change from the previous close', () => {
    const e = toPriceEvent(q(71_900, 10), { ...ctx, session: 'after_market' }) as PriceEvent;
    expect(e).toMatchObject({ price: 71_900, change: 1_900, change_percent: 2.71, source: 'sweep', session: 'after_market', ts: NOW });
  });

  it('refuses unknown codes, off-grid prices, prices beyond ±30%, and a volume that goes back', () => {
    expect(toPriceEvent(q(71_900, 10), { ...ctx, stock: null })).toBe('unknown_code');
    expect(toPriceEvent(q(71_950, 10), ctx)).toBe('off_grid');
    expect(toPriceEvent(q(92_000, 10), ctx)).toBe('outside_limit');
    const prev = toPriceEvent(q(71_900, 100), ctx) as PriceEvent;
    expect(toPriceEvent(q(72_000, 50), { ...ctx, prev })).toBe('volume_back');
  });

  it('a sweep row equal to the live quote changes nothing; a trade frame always counts', () => {
    const prev = toPriceEvent(q(71_900, 100), ctx) as PriceEvent;
    expect(toPriceEvent(q(71_900, 100), { ...ctx, prev })).toBeNull();
    expect(toPriceEvent(q(71_900, 100), { ...ctx, prev, source: 'tick' })).toMatchObject({ source: 'tick' });
  });
});
