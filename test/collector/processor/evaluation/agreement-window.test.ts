/**
 * Agreement statistics against known values: Cohen's kappa of textbook tables, the degenerate
 * cases (no pairs; both entries giving every subject one class: kappa undefined, reported null),
 * the window (oldest pairs dropped, a subject's newer pair replacing its older one) and the mean
 * absolute score difference over the pairs where both scored.
 */
import { describe, expect, it } from 'vitest';
import { cohensKappa, createAgreementWindow } from '../../../../collector/processor/evaluation/agreement-window.ts';

describe("Cohen's kappa", () => {
  it('matches textbook tables', () => {
    // 50 subjects: 20 both yes, 5 only A, 10 only B, 15 both no → p_o 0.7, p_e 0.5, kappa 0.4.
    expect(cohensKappa(20, 5, 10, 15)).toBeCloseTo(0.4, 12);
    // 100 subjects: 45 / 15 / 25 / 15 → p_o 0.6, p_e 0.54, kappa 0.1304…
    expect(cohensKappa(45, 15, 25, 15)).toBeCloseTo(0.06 / 0.46, 12);
    expect(cohensKappa(5, 0, 0, 5)).toBe(1);
    expect(cohensKappa(0, 5, 5, 0)).toBe(-1);
  });

  it('is null with no pairs, and when both entries gave every subject the same one class', () => {
    expect(cohensKappa(0, 0, 0, 0)).toBeNull();
    expect(cohensKappa(12, 0, 0, 0)).toBeNull();
    expect(cohensKappa(0, 0, 0, 7)).toBeNull();
    // One entry always passes, the other always fails: chance agreement 0, kappa 0.
    expect(cohensKappa(0, 9, 0, 0)).toBe(0);
  });
});

describe('the agreement window', () => {
  it('reports nothing for no pairs', () => {
    expect(createAgreementWindow(10).statistics()).toEqual({ count: 0, rate: null, kappa: null, scoreMae: null });
  });

  it('counts the last `window` pairs, a subject once with its newest pair', () => {
    const window = createAgreementWindow(4);
    window.set('s1', { aPassed: true, bPassed: false, aScore: 0.9, bScore: 0.1 });
    window.set('s2', { aPassed: true, bPassed: true, aScore: 0.8, bScore: 0.6 });
    window.set('s3', { aPassed: false, bPassed: false });
    window.set('s4', { aPassed: false, bPassed: true, aScore: 0.2, bScore: 0.5 });
    expect(window.statistics()).toMatchObject({ count: 4, rate: 0.5, kappa: 0 });
    // |0.9 − 0.1|, |0.8 − 0.6|, |0.2 − 0.5| (s3 has no scores).
    expect(window.statistics().scoreMae).toBeCloseTo(1.3 / 3, 9);
    // s1 judged again: its new pair replaces the old one and becomes the newest.
    window.set('s1', { aPassed: true, bPassed: true, aScore: 1, bScore: 1 });
    expect(window.statistics()).toMatchObject({ count: 4, rate: 0.75 });
    // A fifth subject drops the oldest (s2), not s1.
    window.set('s5', { aPassed: false, bPassed: false });
    const { count, rate, kappa, scoreMae } = window.statistics();
    expect({ count, rate }).toEqual({ count: 4, rate: 0.75 });
    // Left: s3 (F,F), s4 (F,P), s1 (P,P), s5 (F,F) → p_o 0.75, a passes 1/4, b 2/4, p_e 0.5.
    expect(kappa).toBeCloseTo(0.5, 12);
    expect(scoreMae).toBeCloseTo(0.15, 9);
  });
});
